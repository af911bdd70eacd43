import type { TSchema } from "@sinclair/typebox";
import { type ValueError, ValueErrorType } from "@sinclair/typebox/value";

/** `/transactions/3/hash` → `transactions[3].hash`. */
export function fieldName(pointer: string): string {
  return pointer
    .split("/")
    .filter(Boolean)
    .map((part, i) => (/^\d+$/.test(part) ? `[${part}]` : i === 0 ? part : `.${part}`))
    .join("");
}

const KIND_NAMES: Record<string, string> = {
  string: "a string",
  null: "null",
  number: "a number",
  integer: "an integer",
  boolean: "a boolean",
  array: "an array",
  object: "an object",
};

/** One client-facing sentence naming the field and the problem: `transactions[3].hash is required`. */
export function describeValueError(e: Pick<ValueError, "path" | "type" | "message" | "schema">): string {
  const field = fieldName(e.path) || "body";
  const s: TSchema = e.schema;
  switch (e.type) {
    case ValueErrorType.ObjectRequiredProperty:
      return `${field} is required`;
    case ValueErrorType.ObjectAdditionalProperties:
      return `${field} is not a known field`;
    case ValueErrorType.String:
      return `${field} must be a string`;
    case ValueErrorType.Integer:
      return `${field} must be an integer`;
    case ValueErrorType.Number:
      return `${field} must be a number`;
    case ValueErrorType.Boolean:
      return `${field} must be a boolean`;
    case ValueErrorType.Array:
      return `${field} must be an array`;
    case ValueErrorType.Object:
      return `${field} must be an object`;
    case ValueErrorType.StringMinLength:
      return s.minLength === 1 ? `${field} must not be empty` : `${field} must be at least ${s.minLength} characters`;
    case ValueErrorType.StringMaxLength:
      return `${field} must be at most ${s.maxLength} characters`;
    case ValueErrorType.StringPattern:
    case ValueErrorType.StringFormat:
      return `${field} is malformed`;
    case ValueErrorType.NumberMinimum:
    case ValueErrorType.IntegerMinimum:
      return `${field} must be at least ${s.minimum}`;
    case ValueErrorType.NumberMaximum:
    case ValueErrorType.IntegerMaximum:
      return `${field} must be at most ${s.maximum}`;
    case ValueErrorType.ArrayMaxItems:
      return `${field} must have at most ${s.maxItems} items`;
    case ValueErrorType.ArrayMinItems:
      return `${field} must have at least ${s.minItems} items`;
    case ValueErrorType.Union: {
      const branches = (s.anyOf as TSchema[] | undefined) ?? [];
      const literals = branches.map((x) => x.const);
      if (literals.length > 0 && literals.every((v) => typeof v === "string")) return `${field} must be one of ${literals.join(", ")}`;
      // A union of plain types (`string | null`): name them as a client would read them.
      const kinds = branches.map((x) => KIND_NAMES[x.type as string]);
      if (kinds.length > 0 && kinds.every((k) => k !== undefined)) return `${field} must be ${kinds.join(" or ")}`;
      return `${field} is invalid`;
    }
    default:
      return `${field} is invalid: ${e.message.toLowerCase()}`;
  }
}
