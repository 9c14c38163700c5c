// What the inspector sends the page of a resource's contents: text as text, an image's data only
// for an image/* type with base64 data, any other blob as its size and type (never its bytes).
import { describe, expect, it } from "vitest";
import { contentView } from "../src/inspect/catalog.js";

describe("a read resource's contents, as the page gets them", () => {
  it("text: as text", () => {
    expect(contentView({ uri: "a://x", mimeType: "text/plain", text: "hello" })).toEqual({
      uri: "a://x",
      mimeType: "text/plain",
      text: "hello",
    });
  });

  it("an image/* blob in base64: its data, for a data: URL, and its decoded size", () => {
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 1]).toString("base64"); // 5 bytes, one "="
    expect(contentView({ uri: "a://i", mimeType: "image/png", blob: png })).toEqual({
      uri: "a://i",
      mimeType: "image/png",
      size: 5,
      image: png,
    });
  });

  it("any other blob, or an image type that is no plain image/* type, or data that is not base64: size and type only", () => {
    const gz = Buffer.alloc(44, 7).toString("base64");
    expect(contentView({ uri: "a://g", mimeType: "application/gzip", blob: gz })).toEqual({
      uri: "a://g",
      mimeType: "application/gzip",
      size: 44,
    });
    expect(contentView({ uri: "a://h", mimeType: 'image/png" onerror="x', blob: gz })).not.toHaveProperty(
      "image",
    );
    expect(contentView({ uri: "a://j", mimeType: "image/png", blob: "<svg>" })).not.toHaveProperty("image");
    expect(contentView({ uri: "a://k", blob: gz })).toEqual({ uri: "a://k", mimeType: null, size: 44 });
  });
});
