import { describe, expect, it } from "vitest";
import { createRouteMatcher } from "./match-route";
import { apiRoutes } from "./routes";

describe("the route matcher", () => {
  it("answers every route of the manifest for its own path, literal segments before parameters", () => {
    const matcher = createRouteMatcher(apiRoutes);
    for (const route of apiRoutes) {
      const path = route.path.replace(/:[^/]+/g, "param-value");
      const matched = matcher.match(route.method, path);
      expect(matched.type === "matched" && matched.route.path, `${route.method} ${path}`).toBe(route.path);
    }
  });
});
