// Package crdschema turns a JSON Schema — a Helm chart's values.schema.json,
// a template folder's, or one given inline — into the structural OpenAPI v3
// schema a CustomResourceDefinition holds, and checks objects against such a
// schema as the API server would.
//
// Convert resolves $ref (inside the document: #/$defs/…, #/definitions/…,
// any JSON pointer), folds allOf into its node, turns a type list into
// nullable or x-kubernetes-int-or-string, hoists the structure of anyOf and
// oneOf branches out of them (a CRD allows only value validations inside),
// carries defaults, enums (const too), bounds, patterns Go can compile and
// formats the API server knows, and reports every keyword it cannot carry
// (Dropped: the value's path, where the keyword is written, and what the CRD
// does instead). What cannot be made structural at all is an *Error naming
// the path and why. The result is validated with the API server's own CRD
// validation before it is returned: what Convert returns a CRD can hold.
//
// Null, however a document allows it (a type list, enum, const, a branch of
// anyOf or oneOf), is allowed by nullable alone: the API server refuses null
// to any enum, even one listing null, so such an enum keeps its other values
// under allOf, which null never reaches; and it stores no default of null.
//
// Admit applies a schema to an object's spec as the API server does on a
// write — nulls a field does not allow dropped, defaults, pruning,
// validation — and reports what it would refuse or drop, so that a new
// schema can be checked against existing instances before it is served.
package crdschema
