/** Lazily compiled TypeBox validators: a schema is compiled on first use, once per process. */
import type { TSchema } from 'typebox';
import { Compile } from 'typebox/compile';

/** The validator `Compile(schema)` returns. */
export type CompiledValidator<S extends TSchema> = ReturnType<typeof Compile<S>>;

/**
 * A function returning `schema` compiled, compiling it on the first call
 * only: modules declare their validators at the top and pay for none they
 * never use.
 */
export function lazyValidator<const S extends TSchema>(schema: S): () => CompiledValidator<S> {
  let compiled: CompiledValidator<S> | undefined;
  return () => (compiled ??= Compile(schema));
}
