import { describe, expect, it } from "vitest";
import { isPrivateAddress, parseWebhookUrl, pinPublicTarget } from "./webhook-target";

describe("alert webhook targets", () => {
  it("refuses private, loopback and link-local addresses", () => {
    for (const address of [
      "127.0.0.1",
      "10.1.2.3",
      "169.254.169.254",
      "192.168.1.1",
      "::1",
      "fd00::1",
      "::ffff:127.0.0.1",
    ])
      expect(isPrivateAddress(address), address).toBe(true);
    for (const address of ["8.8.8.8", "1.1.1.1", "2606:4700::1111"])
      expect(isPrivateAddress(address), address).toBe(false);
  });

  it("accepts https to a public host only, unless private URLs are allowed", () => {
    expect(parseWebhookUrl("https://hooks.example.com/pod", false)).toBe("https://hooks.example.com/pod");
    for (const url of [
      "http://hooks.example.com/pod",
      "https://127.0.0.1/x",
      "https://localhost/x",
      "https://[::1]/x",
      "https://u:p@example.com/",
      "nope",
    ])
      expect(() => parseWebhookUrl(url, false), url).toThrow();
    expect(parseWebhookUrl("http://127.0.0.1:9/x", true)).toBe("http://127.0.0.1:9/x");
  });

  it("checks what a name resolves to when sending, every address of it", async () => {
    await expect(pinPublicTarget("https://localhost/x", false)).rejects.toThrow(/private/);
    await expect(pinPublicTarget("http://127.0.0.1/x", true)).resolves.toMatchObject({
      address: "127.0.0.1",
    });
    const mixed = async () => [
      { address: "198.51.100.7", family: 4 },
      { address: "10.0.0.5", family: 4 },
    ];
    await expect(pinPublicTarget("https://hooks.example.com/x", false, mixed)).rejects.toThrow(/private/);
  });
});
