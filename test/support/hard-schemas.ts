/**
 * Hand-written schemas that break OpenAI's strict mode in the ways MCP servers do, each with the
 * outcome the adapter must reach: converted (`"strict"`) or a fallback with its reason.
 */
export interface HardCase {
  name: string;
  schema: Record<string, unknown>;
  expect: "strict" | string;
}

const str = { type: "string" };

function nested(levels: number): Record<string, unknown> {
  let node: Record<string, unknown> = { type: "object", properties: { leaf: str }, required: ["leaf"] };
  for (let i = 1; i < levels; i++) node = { type: "object", properties: { next: node }, required: ["next"] };
  return node;
}

function deepItems(levels: number): Record<string, unknown> {
  let node: Record<string, unknown> = str;
  for (let i = 0; i < levels; i++) node = { type: "array", items: node };
  return { type: "object", properties: { deep: node }, required: ["deep"] };
}

export const HARD_CASES: HardCase[] = [
  {
    name: "nested objects with optional fields",
    schema: {
      type: "object",
      properties: {
        user: {
          type: "object",
          properties: {
            name: str,
            nickname: { type: "string", description: "optional" },
            address: {
              type: "object",
              properties: { city: str, zip: { type: "string", pattern: "^[a-z]+$" } },
              required: ["city"],
            },
          },
          required: ["name"],
        },
        tags: { type: "array", items: { type: "string", enum: ["a", "b"] }, minItems: 1, maxItems: 3 },
        limit: { type: "integer", minimum: 1, maximum: 100 },
      },
      required: ["user"],
    },
    expect: "strict",
  },
  {
    name: "optional enum, const, $ref and anyOf properties",
    schema: {
      type: "object",
      $defs: {
        point: {
          type: "object",
          properties: { x: { type: "number" }, y: { type: "number" } },
          required: ["x"],
        },
      },
      properties: {
        unit: { type: "string", enum: ["C", "F"] },
        mode: { const: "fast" },
        origin: { $ref: "#/$defs/point", description: "where it starts" },
        value: { anyOf: [{ type: "string" }, { type: "number" }] },
        when: { type: "string", format: "date-time" },
      },
      required: [],
    },
    expect: "strict",
  },
  {
    name: "optional field that already takes null",
    schema: {
      type: "object",
      properties: { note: { type: ["string", "null"] }, id: { type: "string" } },
      required: ["id"],
    },
    expect: "strict",
  },
  {
    name: "recursive schema through #",
    schema: {
      type: "object",
      properties: { label: str, children: { type: "array", items: { $ref: "#" } } },
      required: ["label"],
    },
    expect: "strict",
  },
  {
    name: "draft-07 definitions with annotations",
    schema: {
      $schema: "http://json-schema.org/draft-07/schema#",
      type: "object",
      definitions: { step: { type: "object", properties: { text: str }, required: ["text"], default: {} } },
      properties: {
        steps: { type: "array", items: { $ref: "#/definitions/step" } },
        dry: { type: "boolean", default: false },
      },
      required: ["steps"],
      additionalProperties: false,
    },
    expect: "strict",
  },
  {
    name: "ten levels of objects",
    schema: nested(10),
    expect: "strict",
  },
  {
    name: "oneOf",
    schema: { type: "object", properties: { v: { oneOf: [str, { type: "number" }] } } },
    expect: "unsupported_keyword",
  },
  {
    name: "allOf",
    schema: { type: "object", properties: { v: { allOf: [str] } } },
    expect: "unsupported_keyword",
  },
  { name: "not", schema: { type: "object", properties: { v: { not: str } } }, expect: "unsupported_keyword" },
  {
    name: "if/then",
    schema: {
      type: "object",
      properties: { v: str },
      if: { properties: { v: { const: "a" } } },
      // biome-ignore lint/suspicious/noThenProperty: the JSON Schema keyword is what is tested
      then: { required: ["v"] },
    },
    expect: "unsupported_keyword",
  },
  {
    name: "patternProperties",
    schema: { type: "object", patternProperties: { "^x-": str } },
    expect: "unsupported_keyword",
  },
  {
    name: "a map (additionalProperties schema)",
    schema: { type: "object", properties: { env: { type: "object", additionalProperties: str } } },
    expect: "open_object",
  },
  {
    name: "a free-form nested object",
    schema: { type: "object", properties: { meta: { type: "object" } } },
    expect: "open_object",
  },
  { name: "eleven levels of objects", schema: nested(11), expect: "nesting_limit" },
  { name: "a thousand levels of arrays", schema: deepItems(1000), expect: "too_deep" },
  {
    name: "an enum of 1001 values",
    schema: {
      type: "object",
      properties: { v: { type: "string", enum: Array.from({ length: 1001 }, (_, i) => `v${i}`) } },
    },
    expect: "enum_limit",
  },
  {
    name: "an enum of 300 long strings",
    schema: {
      type: "object",
      properties: {
        v: { type: "string", enum: Array.from({ length: 300 }, (_, i) => `${i}`.padEnd(60, "x")) },
      },
    },
    expect: "enum_limit",
  },
  {
    name: "5001 properties",
    schema: {
      type: "object",
      properties: Object.fromEntries(Array.from({ length: 5001 }, (_, i) => [`p${i}`, str])),
    },
    expect: "property_limit",
  },
  {
    name: "format uri",
    schema: { type: "object", properties: { u: { type: "string", format: "uri" } } },
    expect: "unsupported_format",
  },
  {
    name: "uniqueItems",
    schema: { type: "object", properties: { u: { type: "array", items: str, uniqueItems: true } } },
    expect: "unsupported_keyword",
  },
  {
    name: "an array without items",
    schema: { type: "object", properties: { a: { type: "array" } } },
    expect: "array_without_items",
  },
  {
    name: "an untyped property",
    schema: { type: "object", properties: { a: { description: "anything" } } },
    expect: "untyped_schema",
  },
  {
    name: "a remote $ref",
    schema: { type: "object", properties: { a: { $ref: "https://example.com/s.json" } } },
    expect: "unsupported_ref",
  },
  { name: "a root anyOf", schema: { anyOf: [{ type: "object" }] }, expect: "root_not_object" },
  {
    name: "required without a property",
    schema: { type: "object", properties: {}, required: ["ghost"] },
    expect: "required_not_in_properties",
  },
];
