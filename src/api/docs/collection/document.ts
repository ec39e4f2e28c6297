// The part of the OpenAPI document the collection reads: each operation's method, path, documented
// headers and example bodies, found by its operationId.

/** A JSON object, as the collection and the document are built of. */
export type Json = Record<string, unknown>;
export interface Parameter {
  readonly in: string;
  readonly name: string;
  readonly required?: boolean;
}
export interface Operation {
  readonly operationId?: string;
  readonly summary?: string;
  readonly description?: string;
  readonly tags?: readonly string[];
  readonly security?: readonly Json[];
  readonly parameters?: readonly Parameter[];
  readonly requestBody?: {
    readonly content: Record<string, { readonly examples?: Record<string, { readonly value: unknown }> }>;
  };
}
export interface OpenApiDocument {
  readonly info: { readonly title: string; readonly version: string };
  readonly paths: Record<string, Record<string, Operation>>;
  readonly tags?: readonly { readonly name: string; readonly description?: string }[];
}

export interface Located {
  readonly method: string;
  readonly path: string;
  readonly operation: Operation;
}

/** The document's operations by operationId, each with its method (upper case) and path. */
export function operationsById(document: OpenApiDocument): Map<string, Located> {
  const operations = new Map<string, Located>();
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      if (operation.operationId !== undefined)
        operations.set(operation.operationId, { method: method.toUpperCase(), path, operation });
    }
  }
  return operations;
}
