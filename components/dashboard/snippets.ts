/** Copy-ready client setups with the person's own base URLs filled in. */
export interface Snippet {
  id: "curl" | "openai" | "anthropic" | "claude-code";
  label: string;
  language: string;
  code: string;
}

export function buildSnippets(baseUrl: string, token: string): Snippet[] {
  const anthropicBase = `${baseUrl}/proxy/${token}`;
  const openaiBase = `${anthropicBase}/v1`;
  return [
    {
      id: "curl",
      label: "curl",
      language: "bash",
      code: [
        `curl ${openaiBase}/chat/completions \\`,
        `  -H 'content-type: application/json' \\`,
        `  -d '{"model":"gpt-4o-mini","messages":[{"role":"user","content":"Hello"}]}'`,
      ].join("\n"),
    },
    {
      id: "openai",
      label: "OpenAI SDK",
      language: "js",
      code: [
        `import OpenAI from "openai";`,
        "",
        `const client = new OpenAI({ baseURL: "${openaiBase}", apiKey: "pod" });`,
        "const reply = await client.chat.completions.create({",
        `  model: "gpt-4o-mini",`,
        `  messages: [{ role: "user", content: "Hello" }],`,
        "});",
        "console.log(reply.choices[0].message.content);",
      ].join("\n"),
    },
    {
      id: "anthropic",
      label: "Anthropic SDK",
      language: "js",
      code: [
        `import Anthropic from "@anthropic-ai/sdk";`,
        "",
        `const client = new Anthropic({ baseURL: "${anthropicBase}", apiKey: "pod" });`,
        "const reply = await client.messages.create({",
        `  model: "claude-haiku-4-5",`,
        "  max_tokens: 256,",
        `  messages: [{ role: "user", content: "Hello" }],`,
        "});",
        "console.log(reply.content[0].text);",
      ].join("\n"),
    },
    {
      id: "claude-code",
      label: "Claude Code",
      language: "bash",
      code: [`export ANTHROPIC_BASE_URL=${anthropicBase}`, "export ANTHROPIC_API_KEY=pod", "claude"].join(
        "\n",
      ),
    },
  ];
}
