// `npm run --silent mcp -- <folder>`: builds if needed, then runs the built MCP server (out/main/mcp.js) in this
// process, with plain node. stdout carries the protocol, so the build reports on stderr.
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { buildIfNeeded, REPO } from './build-if-needed.mjs';

buildIfNeeded({ toStderr: true });
await import(pathToFileURL(path.join(REPO, 'out/main/mcp.js')).href);
