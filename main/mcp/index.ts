export { createVerbsMcpServer, type VerbsMcpServer, type VerbsMcpServerOptions } from './server';
export { MCP_USAGE, mcpArgumentsOf, parseMcpArguments, serveMcpOverStdio, type McpArguments } from './serve';
