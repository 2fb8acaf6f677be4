// The far end of the bench's Redis round trip (bench/redis-round-trip.ts): every message heard on
// one channel is published again on another, as a replica's bus answers a job. Plain JavaScript,
// so the measured process loads no TypeScript loader.
import { createClient } from "@redis/client";

const [url, inbound, outbound] = process.argv.slice(2);
const publisher = createClient({ url });
const subscriber = createClient({ url });
await Promise.all([publisher.connect(), subscriber.connect()]);
await subscriber.subscribe(inbound, (message) => {
  publisher.publish(outbound, message).catch(() => process.exit(1));
});
process.send?.("ready");
process.on("disconnect", () => process.exit(0));
