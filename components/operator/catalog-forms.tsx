"use client";

import { useState } from "react";
import { formatUsd } from "@/components/dashboard/format";
import { usdToMicrounits } from "@/components/dashboard/usd-input";
import { ConsoleForm, Field } from "./console-form";

const plain = (microunits: bigint) => formatUsd(microunits).replace(/^\$/, "").replace(/,/g, "");

/** Sets (and pins against refreshes) one provider's price for a model, in USD per 1M tokens. */
export function PriceForm({
  model,
  provider,
  inputPer1m,
  outputPer1m,
}: {
  model: string;
  provider: string;
  inputPer1m: bigint;
  outputPer1m: bigint;
}) {
  const [input, setInput] = useState(plain(inputPer1m));
  const [output, setOutput] = useState(plain(outputPer1m));
  const id = `${model}-${provider}`.replace(/[^a-zA-Z0-9-]/g, "-");
  return (
    <ConsoleForm
      label={`Price of ${model} at ${provider}`}
      submit="Save price"
      build={() => {
        const inputMicrounits = usdToMicrounits(input);
        const outputMicrounits = usdToMicrounits(output);
        if (inputMicrounits === undefined || outputMicrounits === undefined)
          return "Prices are dollars per 1M tokens, such as 0.15 or 2.5.";
        return {
          path: `catalog/models/${encodeURIComponent(model)}/prices/${provider}`,
          method: "PUT",
          body: { input_per_1m: inputMicrounits.toString(), output_per_1m: outputMicrounits.toString() },
        };
      }}
      said={() =>
        `Saved: ${provider} now charges ${formatUsd(usdToMicrounits(input) ?? 0n)} in and ${formatUsd(usdToMicrounits(output) ?? 0n)} out per 1M tokens.`
      }
    >
      <Field
        id={`price-in-${id}`}
        label={`${provider}: input, USD per 1M`}
        value={input}
        onChange={setInput}
      />
      <Field
        id={`price-out-${id}`}
        label={`${provider}: output, USD per 1M`}
        value={output}
        onChange={setOutput}
      />
    </ConsoleForm>
  );
}

/** A model's limits (context window, output cap) and whether it is offered at all. */
export function ModelForm({
  model,
  contextWindow,
  maxOutputTokens,
  disabled,
}: {
  model: string;
  contextWindow: number;
  maxOutputTokens: number;
  disabled: boolean;
}) {
  const [context, setContext] = useState(String(contextWindow));
  const [output, setOutput] = useState(String(maxOutputTokens));
  const [off, setOff] = useState(disabled);
  const id = model.replace(/[^a-zA-Z0-9-]/g, "-");
  return (
    <ConsoleForm
      label={`Limits of ${model}`}
      submit="Save model"
      build={() => {
        const contextTokens = Number(context);
        const outputTokens = Number(output);
        if (
          !Number.isInteger(contextTokens) ||
          !Number.isInteger(outputTokens) ||
          contextTokens < 0 ||
          outputTokens < 0
        )
          return "Limits are whole numbers of tokens.";
        return {
          path: `catalog/models/${encodeURIComponent(model)}`,
          method: "PUT",
          body: { context_window: contextTokens, max_output_tokens: outputTokens, disabled: off },
        };
      }}
      said={() => (off ? `${model} is disabled: requests for it are refused.` : `${model} saved.`)}
    >
      <Field id={`context-${id}`} label="Context window (tokens)" value={context} onChange={setContext} />
      <Field id={`output-${id}`} label="Most output tokens" value={output} onChange={setOutput} />
      <label className="dash-check">
        <input type="checkbox" checked={off} onChange={(event) => setOff(event.target.checked)} /> Disabled
      </label>
    </ConsoleForm>
  );
}

/** Offers a disabled model again. */
export function EnableModelForm({ model }: { model: string }) {
  return (
    <ConsoleForm
      label={`Enable ${model}`}
      submit={`Enable ${model}`}
      build={() => ({
        path: `catalog/models/${encodeURIComponent(model)}`,
        method: "PUT",
        body: { disabled: false },
      })}
      said={() => `${model} is offered again.`}
    >
      {null}
    </ConsoleForm>
  );
}
