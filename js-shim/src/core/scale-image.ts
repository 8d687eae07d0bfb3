// The host's half of scaling an image down (the core decides when, and checks the result): where
// the platform decodes images — Obsidian's window on desktop and on a phone, a browser page — an
// image is drawn smaller on a canvas and encoded again. Node cannot, and answers null.

/** The image at most `maxSide` pixels on its longest side and at most `maxBytes`; PNG stays PNG
 * where that fits, anything else becomes JPEG. Null where the platform cannot decode or encode
 * it: the core then checks the original against the API's limits. */
export async function scaleImage(bytes: Uint8Array, mediaType: string, maxSide: number, maxBytes: number): Promise<Uint8Array | null> {
  if (typeof createImageBitmap !== "function" || typeof OffscreenCanvas !== "function") return null;
  // A copy first: the bytes may be a view into the core's memory, which can move while we wait.
  const blob = new Blob([bytes.slice()], { type: mediaType });
  let bitmap: ImageBitmap;
  try {
    bitmap = await createImageBitmap(blob);
  } catch {
    return null;
  }
  const scale = Math.min(1, maxSide / Math.max(bitmap.width, bitmap.height));
  const canvas = new OffscreenCanvas(Math.max(1, Math.round(bitmap.width * scale)), Math.max(1, Math.round(bitmap.height * scale)));
  canvas.getContext("2d")?.drawImage(bitmap, 0, 0, canvas.width, canvas.height);
  bitmap.close();
  const type = mediaType === "image/png" ? "image/png" : "image/jpeg";
  let out: Blob | null = await canvas.convertToBlob({ type, quality: 0.9 }).catch(() => null);
  if (out && out.size > maxBytes) out = await canvas.convertToBlob({ type: "image/jpeg", quality: 0.85 }).catch(() => null);
  return out && out.size <= maxBytes ? new Uint8Array(await out.arrayBuffer()) : null;
}
