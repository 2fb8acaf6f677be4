import { HttpBackend } from "./http-backend";

/** Any other OpenAI-compatible server: models from /v1/models, no context window reported. */
export class OpenAiBackend extends HttpBackend {}
