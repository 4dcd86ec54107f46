import type { z } from 'zod';

export interface RequestSpec<A extends z.ZodType = z.ZodType, R extends z.ZodType = z.ZodType> {
  args: A;
  result: R;
}

/** Declares one request channel: the args the main side validates and the result it returns. */
export function request<A extends z.ZodType, R extends z.ZodType>(args: A, result: R): RequestSpec<A, R> {
  return { args, result };
}
