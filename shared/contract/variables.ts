import { z } from 'zod';
import { request } from './define';
import { RelPath } from './workspace';

/*
 * The Variables view: what a notebook's live kernel holds. Main asks the kernel with a silent request that
 * leaves its namespace, execution count and history as they were, and only while no cell runs (the rule
 * completion follows); a busy, dead or missing kernel is an answer, never an error.
 */

/**
 * How a row is reached from the namespace: the variable's name, then one step per level, each `[kind, at]`:
 * 'a' an instance attribute (its name), 'i' the nth item (list, tuple, set, array row, Series position),
 * 'k' the nth entry of a dict, 'c' the nth column of a DataFrame.
 */
export const VariableStep = z.tuple([z.enum(['a', 'i', 'k', 'c']), z.union([z.string(), z.number().int().min(0)])]);
export type VariableStep = z.infer<typeof VariableStep>;
export const VariableRef = z.tuple([z.string()], VariableStep);
export type VariableRef = z.infer<typeof VariableRef>;

/** What kind of name it is: 'data' shows by default; the others only with `all` (modules, functions, classes, IPython's own and _names). */
export const VariableKind = z.enum(['data', 'module', 'function', 'class', 'ipython']);
export type VariableKind = z.infer<typeof VariableKind>;

export const Variable = z.object({
  /** The name (or, for a child, its key, index or column). */
  name: z.string(),
  /** The type's name (qualified unless builtins, numpy, pandas or the notebook's own). */
  type: z.string(),
  kind: VariableKind,
  /** '3 × 4' for arrays and frames, 'len 3' for containers; null for scalars and the rest. */
  shape: z.string().nullable(),
  /** Bytes, where cheap to know: numpy nbytes, pandas memory_usage(deep=False), sys.getsizeof of a scalar or string. */
  size: z.number().int().nullable(),
  /** One line, at most 120 characters, never a large object's whole repr. */
  summary: z.string(),
  /** It has attributes, items or columns to list (notebook.expandVariable). */
  expandable: z.boolean(),
  ref: VariableRef,
});
export type Variable = z.infer<typeof Variable>;

/**
 * No list now, and why: 'busy' a cell is running (the list follows notebook.variablesChanged when it ends),
 * 'cancelled' a newer request replaced this one, 'unavailable' no kernel can answer (none, starting, dead,
 * disconnected: `message` says which), 'unsupported' the kernel is not Python, 'error' the kernel could not run
 * the inspection (`message` has its error).
 */
export const VariablesMiss = z.object({
  status: z.enum(['busy', 'cancelled', 'unavailable', 'unsupported', 'error']),
  message: z.string(),
});
export type VariablesMiss = z.infer<typeof VariablesMiss>;

export const VariablesResult = z.union([
  z.object({
    status: z.literal('ok'),
    variables: z.array(Variable),
    /** How many names matched; more than `variables` when the list was cut at its limit. */
    total: z.number().int(),
  }),
  VariablesMiss,
]);
export type VariablesResult = z.infer<typeof VariablesResult>;

export const VariableChildrenResult = z.union([
  z.object({
    status: z.literal('ok'),
    children: z.array(Variable),
    /** How many children there are in all; the rest is fetched with a later offset ("more…"). */
    total: z.number().int(),
    offset: z.number().int(),
  }),
  /** The variable (or a step of its ref) is not there any more. */
  z.object({ status: z.literal('gone'), message: z.string() }),
  VariablesMiss,
]);
export type VariableChildrenResult = z.infer<typeof VariableChildrenResult>;

/**
 * The value of a top-level DataFrame, Series or array as pandas or NumPy print it (their display options bound
 * it), for the view's value pane; `route` says how it was asked: the kernel debugger's richInspectVariables
 * where the kernel can debug, else the same formatting as a silent user expression.
 */
export const VariableValueResult = z.union([
  z.object({ status: z.literal('ok'), text: z.string(), route: z.enum(['debugger', 'snippet']) }),
  z.object({ status: z.literal('gone'), message: z.string() }),
  VariablesMiss,
]);
export type VariableValueResult = z.infer<typeof VariableValueResult>;

/** How many children one expansion lists. */
export const VARIABLE_CHILDREN_PAGE = 100;

export const variablesRequests = {
  /** The user variables of the notebook's live kernel; `all` adds modules, functions, classes and IPython's own names. */
  'notebook.variables': request(z.object({ path: RelPath, all: z.boolean().default(false) }), VariablesResult),
  /** The attributes, items or columns of the variable at `ref`: up to 100 from `offset`, with their total. */
  'notebook.expandVariable': request(
    z.object({ path: RelPath, ref: VariableRef, offset: z.number().int().min(0).default(0) }),
    VariableChildrenResult,
  ),
  /** The printed value of the top-level variable `name` (a DataFrame, Series or array). */
  'notebook.variableValue': request(
    z.object({
      path: RelPath,
      name: z
        .string()
        .regex(/^[A-Za-z_]\w*$/)
        .max(200),
    }),
    VariableValueResult,
  ),
} as const;

export const variablesEvents = {
  /**
   * The kernel's variables may have changed: the notebook's runs ended (the queue is empty), or its kernel
   * restarted, died or changed. A view that shows them asks again; nothing is sent to the kernel before.
   */
  'notebook.variablesChanged': z.object({ path: RelPath }),
} as const;
