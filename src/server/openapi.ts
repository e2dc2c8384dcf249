import { z } from "zod";
import {
  AdvantagesRequest,
  AdvantagesResponse,
  ErrorBody,
  GradeRequest,
  GradeResult,
  JobView,
  StepRequest,
  StepResult,
  VerifyRequest,
  VerifyResult,
} from "../contracts/service.ts";

/** JSON Schema (2020-12, as OpenAPI 3.1 uses) of a contract, as a request or as a response. */
function schema(type: z.ZodType, io: "input" | "output"): Record<string, unknown> {
  const { $schema: _, ...rest } = z.toJSONSchema(type, { io, unrepresentable: "any" }) as Record<
    string,
    unknown
  >;
  return rest;
}

const json = (s: Record<string, unknown>) => ({ "application/json": { schema: s } });
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

const errors = {
  "400": {
    description: "Malformed JSON or a schema violation; the message names the field",
    content: json(ref("Error")),
  },
  "401": { description: "No or a wrong bearer token", content: json(ref("Error")) },
  "413": { description: "Body larger than the service's limit", content: json(ref("Error")) },
  "429": {
    description: "The queue is over its bound, or too many requests are in flight; see Retry-After",
    headers: { "Retry-After": { schema: { type: "integer" }, description: "seconds" } },
    content: json(ref("Error")),
  },
};

function jobOperation(summary: string, request: string, result: string) {
  return {
    summary,
    requestBody: { required: true, content: json(ref(request)) },
    responses: {
      "200": {
        description: `Finished within \`wait\`: the job, with \`result\` a ${result}`,
        content: json(ref("Job")),
      },
      "202": {
        description: "Accepted: poll the job (Location header) for its result",
        headers: { Location: { schema: { type: "string" } } },
        content: json(ref("Job")),
      },
      ...errors,
    },
  };
}

/** The OpenAPI 3.1 document served at /openapi.json, generated from the zod contracts. */
export function openApiDocument(version: string): Record<string, unknown> {
  return {
    openapi: "3.1.0",
    info: {
      title: "gagar",
      version,
      description:
        "Verification, groupwise grading and GAGAR advantages for RL trainers of code agents. " +
        "Every /v1 route needs `Authorization: Bearer <token>` when the service was given a token.",
    },
    components: {
      securitySchemes: { bearer: { type: "http", scheme: "bearer" } },
      schemas: {
        AdvantagesRequest: schema(AdvantagesRequest, "input"),
        AdvantagesResponse: schema(AdvantagesResponse, "output"),
        VerifyRequest: schema(VerifyRequest, "input"),
        VerifyResult: schema(VerifyResult, "output"),
        GradeRequest: schema(GradeRequest, "input"),
        GradeResult: schema(GradeResult, "output"),
        StepRequest: schema(StepRequest, "input"),
        StepResult: schema(StepResult, "output"),
        Job: schema(JobView, "output"),
        Error: schema(ErrorBody, "output"),
      },
    },
    security: [{ bearer: [] }],
    paths: paths(),
  };
}

/** Every route: what it takes and what it answers. */
function paths(): Record<string, unknown> {
  return {
    "/v1/advantages": {
      post: {
        summary: "GRPO-family advantages with GAGAR redistribution (same numbers as `gagar advantages`)",
        requestBody: { required: true, content: json(ref("AdvantagesRequest")) },
        responses: {
          "200": { description: "One row per candidate", content: json(ref("AdvantagesResponse")) },
          ...errors,
        },
      },
    },
    "/v1/verify": {
      post: jobOperation(
        "Verify rollout patches against the service's task packs",
        "VerifyRequest",
        "VerifyResult",
      ),
    },
    "/v1/grade": {
      post: jobOperation("Rank the passing candidates of groups", "GradeRequest", "GradeResult"),
    },
    "/v1/steps": {
      post: jobOperation(
        "One RL step for your rollouts: verify, dynamic-sampling filter, grade, advantages",
        "StepRequest",
        "StepResult",
      ),
    },
    "/v1/jobs/{id}": {
      get: {
        summary: "A job's state, progress and result",
        parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }],
        responses: {
          "200": { description: "The job", content: json(ref("Job")) },
          "404": {
            description: "No such job (or dropped after the retention time)",
            content: json(ref("Error")),
          },
          "401": errors["401"],
        },
      },
    },
    "/v1/runs/{id}/report": {
      get: {
        summary:
          "A run of the service's store (its recorded /v1/steps) as the self-contained HTML page `gagar report --store` writes",
        parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }],
        responses: {
          "200": { description: "The report page", content: { "text/html": {} } },
          "404": { description: "No run with that id in the service's store", content: json(ref("Error")) },
          "401": errors["401"],
        },
      },
    },
    "/v1/packs/{digest}": {
      get: {
        summary: "A task pack by content digest, as a tar archive (for `gagar worker`)",
        parameters: [{ name: "digest", in: "path", required: true, schema: { type: "string" } }],
        responses: {
          "200": { description: "tar archive", content: { "application/x-tar": {} } },
          "404": { description: "No pack with that digest here", content: json(ref("Error")) },
        },
      },
    },
    "/healthz": {
      get: {
        summary: "Liveness, and whether the queue answers",
        security: [],
        responses: { "200": { description: "ok" }, "503": { description: "queue unreachable" } },
      },
    },
    "/metrics": {
      get: {
        summary: "Prometheus metrics",
        responses: { "200": { description: "text exposition format" } },
      },
    },
    "/openapi.json": {
      get: { summary: "This document", security: [], responses: { "200": { description: "OpenAPI 3.1" } } },
    },
  };
}
