/** A failure the person must see, announced at once by screen readers; nothing when there is none. */
export function ErrorAlert({ message }: { message: string | undefined }) {
  if (message === undefined) return null;
  return (
    <p className="dash-alert dash-alert--error" role="alert">
      {message}
    </p>
  );
}
