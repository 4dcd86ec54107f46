// Config and agent channels; filled in by the edit-panel work (issue 5).
export const agentRequests = {} as const;
export const agentEvents = {} as const;
