export { createVerbsMcpServer, type VerbsMcpServer, type VerbsMcpServerOptions } from './server';
