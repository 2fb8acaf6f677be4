/**
 * A labelled amount in dollars, typed as text so that it stays exact to the microunit
 * (`usdToMicrounits` reads it; a number input would round through floating point).
 */
export function UsdField({
  label,
  value,
  onChange,
  placeholder,
}: {
  label: string;
  value: string;
  onChange: (value: string) => void;
  placeholder?: string;
}) {
  return (
    <label className="dash-field">
      <span className="dash-label">{label}</span>
      <input
        className="dash-input"
        inputMode="decimal"
        value={value}
        placeholder={placeholder}
        onChange={(event) => onChange(event.target.value)}
      />
    </label>
  );
}
