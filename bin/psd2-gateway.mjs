#!/usr/bin/env node
// Runs the TypeScript sources through tsx's loader.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/index.ts');
