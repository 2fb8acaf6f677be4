export default function HomePage() {
  return (
    <main>
      <h1>Pod Gateway</h1>
      <p>An inference marketplace with a drop-in OpenAI and Anthropic API.</p>
    </main>
  );
}
