import type { ReactNode } from "react";

export const metadata = {
  title: "Pod Gateway",
  description: "An inference marketplace with a drop-in OpenAI and Anthropic API.",
};

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body>{children}</body>
    </html>
  );
}
