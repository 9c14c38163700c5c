/**
 * Content blocks as servers send them in tool results and prompt messages (the spec's kinds and
 * a typed fallback). Shared vocabulary: the client, governance and the upper floors name them.
 */
import type { JsonObject } from "./guards.js";

/** The spec's content-block annotations: a hint for the client, never checked. */
export type Annotations = {
  audience?: Array<"user" | "assistant">;
  priority?: number;
  lastModified?: string;
};

export type TextContent = {
  type: "text";
  text: string;
  annotations?: Annotations;
  _meta?: JsonObject;
};

export type ImageContent = {
  type: "image";
  /** Base64. */
  data: string;
  mimeType: string;
  annotations?: Annotations;
  _meta?: JsonObject;
};

export type AudioContent = {
  type: "audio";
  /** Base64. */
  data: string;
  mimeType: string;
  annotations?: Annotations;
  _meta?: JsonObject;
};

/** A resource the server can read; it need not be in `resources/list`. */
export type ResourceLink = {
  type: "resource_link";
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  size?: number;
  icons?: JsonObject[];
  annotations?: Annotations;
  _meta?: JsonObject;
};

export type TextResourceContents = {
  uri: string;
  text: string;
  mimeType?: string;
  _meta?: JsonObject;
};

export type BlobResourceContents = {
  uri: string;
  /** Base64. */
  blob: string;
  mimeType?: string;
  _meta?: JsonObject;
};

/** One item of `resources/read`'s `contents`: tell them apart with `"text" in item`. */
export type ResourceContents = TextResourceContents | BlobResourceContents;

export type EmbeddedResource = {
  type: "resource";
  resource: ResourceContents;
  annotations?: Annotations;
  _meta?: JsonObject;
};

/**
 * The `type` of a content block this version does not know (a later spec's, or a server's own).
 * At run time it is the string the server sent; the type is a brand only so that comparing
 * `block.type === "text"` rules this case out (a plain `string` here would keep it in every
 * branch). Compare it to a string of your own with `String(block.type) === "video"`.
 */
export declare enum UnknownContentType {
  Unknown = "(a content type this version does not know)",
}

/** A content block of a type this version does not know: passed on as sent, never dropped. */
export type UnknownContentBlock = {
  type: UnknownContentType;
  [key: string]: unknown;
};

/**
 * A content block as a server sends it in a tool result or a prompt message: the spec's five
 * kinds, narrowed by `type`, and a typed fallback for any other. Blocks are passed on as sent
 * (the client does not check their fields), so a known `type` with missing fields is the
 * server's mistake to guard against where it matters.
 */
export type ContentBlock =
  | TextContent
  | ImageContent
  | AudioContent
  | ResourceLink
  | EmbeddedResource
  | UnknownContentBlock;
