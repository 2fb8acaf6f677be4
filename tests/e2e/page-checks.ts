import { createRequire } from "node:module";
import type { Page } from "playwright-core";

/**
 * Checks every dashboard page gets in the page tests: nothing wider than the viewport (a phone
 * at 360 px must never scroll sideways), and axe-core's WCAG AA colour contrast and
 * scrollable-region-focusable (a box that scrolls must be reachable by keyboard).
 */

const require = createRequire(import.meta.url);
const axeSource: string = (require("axe-core") as { source: string }).source;

/** The page's widest element when the document is wider than the viewport; undefined when it fits. */
export async function horizontalOverflow(page: Page): Promise<string | undefined> {
  return page.evaluate(() => {
    const root = document.documentElement;
    if (root.scrollWidth <= root.clientWidth) return undefined;
    const culprits: string[] = [];
    for (const element of document.body.querySelectorAll("*")) {
      const box = element.getBoundingClientRect();
      if (box.right > root.clientWidth + 1 && box.width > 0) {
        const id = element.id ? `#${element.id}` : "";
        const classes =
          typeof element.className === "string" && element.className
            ? `.${element.className.split(" ").join(".")}`
            : "";
        culprits.push(`${element.tagName.toLowerCase()}${id}${classes} (right ${Math.round(box.right)})`);
      }
    }
    return `document ${root.scrollWidth}px wide in a ${root.clientWidth}px viewport: ${culprits.slice(0, 8).join(", ")}`;
  });
}

interface AxeNode {
  target: string[];
  failureSummary?: string;
}

/** axe-core's colour-contrast (WCAG 2 AA: 4.5:1, 3:1 for large text) and scrollable-region-focusable rules on the page as it is now. */
export async function axeViolations(page: Page): Promise<string[]> {
  if (!(await page.evaluate(() => "axe" in window))) await page.addScriptTag({ content: axeSource });
  const result = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(context: Document, options: unknown): Promise<unknown> } })
      .axe;
    return axe.run(document, {
      runOnly: { type: "rule", values: ["color-contrast", "scrollable-region-focusable"] },
      resultTypes: ["violations"],
    });
  });
  const violations = (result as { violations: { id: string; nodes: AxeNode[] }[] }).violations;
  return violations.flatMap((violation) =>
    violation.nodes.map(
      (node) => `${node.target.join(" ")}: ${(node.failureSummary ?? "").replace(/\s+/g, " ").slice(0, 240)}`,
    ),
  );
}

/**
 * Waits until React has hydrated the element (it carries a `__reactFiber` key from then on): a click
 * that lands on server-rendered HTML before hydration has no handler and is lost.
 */
export async function waitForHydration(page: Page, selector: string): Promise<void> {
  await page.waitForFunction((css) => {
    const element = document.querySelector(css);
    return element !== null && Object.keys(element).some((key) => key.startsWith("__reactFiber"));
  }, selector);
}
