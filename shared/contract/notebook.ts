// Notebook and kernel channels; filled in by the notebook work (issue 4).
export const notebookRequests = {} as const;
export const notebookEvents = {} as const;
