/**
 * The smallest value a JSON Schema accepts, as a model under structured output would answer:
 * every property (required or not), the first enum or union member, one array item. Enough
 * of JSON Schema for what SDKs send (objects, arrays, scalars, enum/const, anyOf/oneOf,
 * nullable type lists, local $ref into $defs/definitions).
 */
type Schema = Record<string, unknown>;

const isSchema = (value: unknown): value is Schema =>
  typeof value === "object" && value !== null && !Array.isArray(value);

function resolveRef(ref: string, root: Schema): Schema {
  const path = ref.replace(/^#\//, "").split("/");
  let node: unknown = root;
  for (const key of path) node = isSchema(node) ? node[key] : undefined;
  return isSchema(node) ? node : {};
}

/** `value`, moved into [minimum, maximum] when the schema bounds it. */
function within(value: number, schema: Schema): number {
  const low = typeof schema.minimum === "number" ? schema.minimum : -Infinity;
  const high = typeof schema.maximum === "number" ? schema.maximum : Infinity;
  return Math.min(Math.max(value, low), high);
}

export function schemaInstance(schema: unknown, root: Schema = isSchema(schema) ? schema : {}): unknown {
  if (!isSchema(schema)) return "value";
  if (typeof schema.$ref === "string") return schemaInstance(resolveRef(schema.$ref, root), root);
  if ("const" in schema) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  for (const key of ["anyOf", "oneOf", "allOf"]) {
    const options = schema[key];
    if (Array.isArray(options)) {
      const first = options.find((option) => !(isSchema(option) && option.type === "null")) ?? options[0];
      return schemaInstance(first, root);
    }
  }
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  const type = types.find((item) => item !== "null") ?? (isSchema(schema.properties) ? "object" : "string");
  switch (type) {
    case "object": {
      // Any object will do (JSON mode): answer as the fake's json_object answer does.
      if (!isSchema(schema.properties)) return { answer: "Hello" };
      const properties = schema.properties;
      return Object.fromEntries(
        Object.entries(properties).map(([key, value]) => [key, schemaInstance(value, root)]),
      );
    }
    case "array":
      return [schemaInstance(schema.items, root)];
    case "integer":
      return Math.ceil(within(7, schema));
    case "number":
      return within(7.5, schema);
    case "boolean":
      return true;
    default:
      return typeof schema.format === "string" && schema.format === "email" ? "ada@example.com" : "Paris";
  }
}
