// docs/BENCHMARKS.md edited one section at a time, for the scripts that can run alone.

/**
 * Replaces the section headed `## heading` in `markdown` with `section` (which starts with "\n##");
 * when there is none yet, puts it before the section headed `## before`, or at the end.
 */
export function spliceSection(markdown, heading, section, before = "Soak") {
  const start = markdown.indexOf(`\n## ${heading}\n`);
  if (start >= 0) {
    const next = markdown.indexOf("\n## ", start + 1);
    return markdown.slice(0, start) + section + (next >= 0 ? markdown.slice(next) : "");
  }
  const at = markdown.indexOf(`\n## ${before}\n`);
  return at >= 0 ? markdown.slice(0, at) + section + markdown.slice(at) : markdown + section;
}
