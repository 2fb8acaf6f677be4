const tone = { good: "ok", demoted: "warn", excluded: "danger" } as const;

/** A host's standing as a badge: good, demoted (tried last) or excluded (not routed). */
export function StandingBadge({ standing }: { standing: keyof typeof tone }) {
  return <span className={`dash-badge dash-badge--${tone[standing]}`}>{standing}</span>;
}
