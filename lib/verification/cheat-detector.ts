/**
 * The per (host, model) decision over checked answers: an e-detector (a CUSUM whose increments
 * are log e-values, Shin, Ramdas and Rinaldo 2023), for a host that cheats on some share of its
 * jobs.
 *
 * Each checked answer brings an e-value E (lib/verification/answer-evidence.ts: expectation at
 * most 1 when the host is honest). Mixed with weight w, 1 − w + w·E is an e-value too, and it
 * costs an honest answer at most −log(1 − w) while a cheated answer with a large E adds about
 * log E + log w: a cheater's checked answers add up, the honest ones between them take little
 * away. The statistic restarts from 0 whenever it falls below (so a host that behaved for a
 * long while banks no credit for later), and the host is found cheating when it reaches
 * h = log(horizon / falseAlarm). From every restart the running product is a nonnegative
 * supermartingale under an honest host, so by Ville's inequality each start crosses h with
 * probability at most e^−h, and over `horizon` checked answers an honest host is found cheating
 * with probability at most `falseAlarm`, whatever its temperatures and answer lengths.
 */
export interface DetectorSettings {
  /** Chance an honest host is found cheating within `horizon` checked answers (an upper bound). */
  falseAlarm: number;
  /** Checked answers the false-alarm bound covers. */
  horizon: number;
  /** The mixing weights, one detector each (any crossing its own threshold decides). */
  weights: readonly number[];
}

export const defaultDetectorSettings: DetectorSettings = {
  falseAlarm: 0.01,
  horizon: 10_000,
  weights: [0.05, 0.25],
};

export interface DetectorState {
  /** One statistic per weight. */
  statistics: number[];
  checked: number;
  /** Checked answers since the highest statistic last restarted from 0. */
  run: number;
}

export function newDetector(settings: DetectorSettings = defaultDetectorSettings): DetectorState {
  return { statistics: settings.weights.map(() => 0), checked: 0, run: 0 };
}

/** The threshold each weight's statistic is held to (the bound split evenly over the weights). */
export function detectorThreshold(settings: DetectorSettings = defaultDetectorSettings): number {
  return Math.log((settings.horizon * settings.weights.length) / settings.falseAlarm);
}

/** log(1 − w + w·e^logE), without overflow for a large logE. */
function mixedLog(weight: number, logE: number): number {
  if (logE > 30) return logE + Math.log(weight) + Math.log1p(((1 - weight) / weight) * Math.exp(-logE));
  return Math.log1p(weight * (Math.exp(logE) - 1));
}

export interface DetectorStep {
  state: DetectorState;
  /** The host crossed the threshold with this answer. */
  cheating: boolean;
  /** The largest statistic after this answer, for the record. */
  statistic: number;
}

export function observeAnswer(
  state: DetectorState,
  logE: number,
  settings: DetectorSettings = defaultDetectorSettings,
): DetectorStep {
  const statistics = settings.weights.map(
    (weight, index) => Math.max(state.statistics[index] ?? 0, 0) + mixedLog(weight, logE),
  );
  const statistic = Math.max(...statistics);
  const next = { statistics, checked: state.checked + 1, run: statistic > 0 ? state.run + 1 : 0 };
  return { state: next, cheating: statistic >= detectorThreshold(settings), statistic };
}
