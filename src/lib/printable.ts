import { type StringOptions, Type as T } from "@sinclair/typebox";

/** No C0 control character (NUL, tab, newline, …), DEL or C1 control anywhere in the string. */
export const NO_CONTROL_CHARS = "^[^\\u0000-\\u001f\\u007f-\\u009f]*$";

/**
 * A string schema refusing control characters. Ids, hashes and addresses are echoed in listings,
 * webhook bodies, logs and the CLI's tables, where a NUL or an escape sequence does harm.
 */
export const PrintableString = (opts: StringOptions = {}) => T.String({ ...opts, pattern: NO_CONTROL_CHARS });
