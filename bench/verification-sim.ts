/**
 * The verification simulation (issue 31): seeded hosts, honest and cheating, served job by job
 * against the fake model, a share of their real answers scored under the reference and fed to the
 * per-host detector (lib/verification). Prints a markdown table; `--write` puts it in
 * bench/results.md between its markers. `--runs N` (default 100) seeded runs per scenario.
 * `--fallback` runs the scenarios of the check for a reference without log-probabilities (the
 * host's answer compared with the reference's own samples) instead, into its own table.
 *
 *   npx tsx bench/verification-sim.ts --runs 100 --write
 *   npx tsx bench/verification-sim.ts --fallback --runs 100 --write
 *
 * `--share S` and `--resamples K` set the share of real jobs checked and the samples per check
 * (VERIFY_SHARE, VERIFY_RESAMPLES); `--only TEXT` runs the scenarios whose name contains TEXT.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { detectorThreshold } from "../lib/verification/cheat-detector";
import {
  defaultSimulationSettings,
  type Scenario,
  type ScenarioReport,
  simulateScenario,
} from "./verification/simulate";

const argument = (name: string) => {
  const index = process.argv.indexOf(name);
  return index === -1 ? undefined : process.argv[index + 1];
};
const runs = Number(argument("--runs") ?? 100);
/** Only the scenarios whose name contains this. */
const only = argument("--only");
const within = 500;

const cheaters = (["smaller", "garbage", "truncated"] as const).flatMap((mode) =>
  [0.5, 0.1, 0.02].map(
    (rate): Scenario => ({
      name: `${mode} answers on ${rate * 100}% of real jobs`,
      temperature: 0.7,
      cheat: { mode, rate },
      jobs: rate < 0.05 ? 5000 : 2000,
    }),
  ),
);

export const scenarios: Scenario[] = [
  { name: "honest, temperature 0.7", temperature: 0.7, jobs: 2000 },
  { name: "honest, temperature 0", temperature: 0, jobs: 2000 },
  ...cheaters,
  {
    name: "smaller answers on 10% at temperature 0",
    temperature: 0,
    cheat: { mode: "smaller", rate: 0.1 },
    jobs: 2000,
  },
  {
    name: "a close sibling (same top token at 69% of positions) on 10%",
    temperature: 0.7,
    cheat: { mode: "smaller", rate: 0.1 },
    jobs: 5000,
    smaller: { seed: 9103, scale: 3.5, family: { seed: 7001, deviation: 0.3 } },
  },
  ...[0.1, 0.02].map(
    (rate): Scenario => ({
      name: `canary classifier (every feature it sees): honest on suspected canaries, smaller answers on ${rate * 100}% of the rest`,
      temperature: 0.7,
      cheat: { mode: "smaller", rate },
      classifiesCanaries: true,
      jobs: rate < 0.05 ? 5000 : 2000,
    }),
  ),
  {
    name: "behaves for 1,000 jobs, then smaller answers on 10%",
    temperature: 0.7,
    cheat: { mode: "smaller", rate: 0.1, after: 1000 },
    jobs: 3000,
  },
];

/** The check without log-probabilities: the reference's samples of the same request, compared. */
const fallbackScenarios: Scenario[] = [
  { name: "honest, temperature 0.7", temperature: 0.7, jobs: 2000, check: "resampled" },
  { name: "honest, temperature 0", temperature: 0, jobs: 2000, check: "resampled" },
  ...(["smaller", "garbage"] as const).flatMap((mode) =>
    [0.5, 0.1, 0.02].map(
      (rate): Scenario => ({
        name: `${mode} answers on ${rate * 100}% of real jobs`,
        temperature: 0.7,
        cheat: { mode, rate },
        jobs: 2000,
        check: "resampled",
      }),
    ),
  ),
  ...(["smaller", "garbage"] as const).map(
    (mode): Scenario => ({
      name: `${mode} answers on 10% of real jobs, temperature 0`,
      temperature: 0,
      cheat: { mode, rate: 0.1 },
      jobs: 2000,
      check: "resampled",
    }),
  ),
];

function row(report: ScenarioReport): string {
  const { scenario } = report;
  const honest = scenario.cheat === undefined;
  const median = report.medianJobsToExclusion === undefined ? "–" : String(report.medianJobsToExclusion);
  return `| ${scenario.name} | ${report.runs} × ${scenario.jobs} | ${honest ? "–" : `${report.excludedWithin} of ${report.runs}`} | ${
    honest ? "–" : `${report.excluded} of ${report.runs}`
  } | ${report.falseExclusions} of ${report.runs} | ${median} | ${report.checkedPerRun.toFixed(0)} | ${(report.costShare * 100).toFixed(1)}% | ${
    scenario.classifiesCanaries
      ? `${(report.sparedCanaryShare * 100).toFixed(0)}% / ${(report.sparedRealShare * 100).toFixed(1)}%`
      : "–"
  } |`;
}

// `--share` and `--resamples` override VERIFY_SHARE's and VERIFY_RESAMPLES's defaults: the levers.
const settings = {
  ...defaultSimulationSettings,
  verifyShare: Number(argument("--share") ?? defaultSimulationSettings.verifyShare),
  resamples: Number(argument("--resamples") ?? defaultSimulationSettings.resamples),
};
const fallback = process.argv.includes("--fallback");
const started = Date.now();
const lines = [
  `Seeded runs ${new Date().toISOString().slice(0, 16)}Z, ${runs} per scenario (seeds 1 to ${runs}): verification share ${settings.verifyShare * 100}% of real jobs, canaries ${settings.canaryShare * 100}%, ${
    fallback
      ? `a reference without log-probabilities: ${settings.resamples} samples of the same request per checked answer (a greedy job's at temperature ${settings.evidence.temperatureFloor})`
      : `reference top ${settings.topAlternatives} alternatives`
  }, serving noise ${settings.servingNoise} on every logit (host and reference), threshold ${detectorThreshold(settings.detector).toFixed(1)} (false alarm ${settings.detector.falseAlarm} within ${settings.detector.horizon.toLocaleString("en")} checked answers).`,
  "",
  `| host | runs × real jobs | excluded within ${within} real jobs of cheating | excluded in the run | excluded while honest | median real jobs to exclusion | answers checked per run | verification cost / revenue | canaries / real jobs the classifier took for canaries |`,
  "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
];
for (const scenario of fallback ? fallbackScenarios : scenarios) {
  if (only !== undefined && !scenario.name.includes(only)) continue;
  const report = simulateScenario(scenario, runs, within, settings);
  lines.push(row(report));
  console.error(`${scenario.name}: ${((Date.now() - started) / 1000).toFixed(0)} s`);
}
const table = lines.join("\n");
console.log(table);

if (process.argv.includes("--write")) {
  const path = join(import.meta.dirname, "results.md");
  const marker = fallback ? "verification-sim-fallback" : "verification-sim";
  const begin = `<!-- ${marker} -->`;
  const end = `<!-- /${marker} -->`;
  const text = readFileSync(path, "utf8");
  const section = `${begin}\n${table}\n${end}`;
  const at = text.indexOf(begin);
  writeFileSync(
    path,
    at === -1
      ? `${text.trimEnd()}\n\n## Verified inference${fallback ? " without log-probabilities" : ""}: the simulation (bench/verification-sim.ts${fallback ? " --fallback" : ""})\n\n${section}\n`
      : `${text.slice(0, at)}${section}${text.slice(text.indexOf(end) + end.length)}`,
  );
}
