/** The Pod mark: a rounded pod holding three seeds, the three kinds of provider it routes to. */
export function Logo({ size = 26 }: { size?: number }) {
  return (
    <svg aria-hidden="true" width={size} height={size} viewBox="0 0 32 32" className="logo">
      <rect x="3" y="7" width="26" height="18" rx="9" fill="var(--accent)" />
      <circle cx="10.5" cy="16" r="3" fill="var(--bg)" />
      <circle cx="16" cy="16" r="3" fill="var(--bg)" opacity="0.85" />
      <circle cx="21.5" cy="16" r="3" fill="var(--bg)" opacity="0.7" />
    </svg>
  );
}
