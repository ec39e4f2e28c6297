// The typed client the demo walks the flows with, taken from the root package by path until it is a
// package of its own (issue 40): then this line names that package, and no other file of the demo changes.
export * from '../../../src/client/index.ts';
