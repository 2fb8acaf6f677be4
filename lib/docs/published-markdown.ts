/**
 * The docs snippet runner reads directives from a code fence's info string (`norun`,
 * `expect=<status>`). They are instructions to our test suite, not part of the page, so the
 * Markdown served to people and crawlers drops them and keeps the language and title.
 */
const fenceDirectivePattern = /^(?:norun|expect=\d{3})$/;

const fenceOpen = /^([ \t]*)(`{3,}|~{3,})([^\n`]*)$/gm;

export function publishedMarkdown(body: string): string {
  return body.replace(fenceOpen, (_line, indent: string, fence: string, info: string) => {
    const kept = info
      .trim()
      .split(/\s+/)
      .filter((token) => token !== "" && !fenceDirectivePattern.test(token));
    return `${indent}${fence}${kept.join(" ")}`;
  });
}
