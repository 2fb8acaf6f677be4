/** mulberry32: a small seeded generator in [0, 1), so the same seed gives the same sequence everywhere. */
export { stream as seededRandom } from "../../bench/verification/fake-model";
