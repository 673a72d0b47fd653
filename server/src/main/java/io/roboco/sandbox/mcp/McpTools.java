package io.roboco.sandbox.mcp;

import io.modelcontextprotocol.spec.McpSchema;
import io.roboco.sandbox.engine.NameShape;
import io.roboco.sandbox.request.IdempotencyKey;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Tool descriptions as the SDK wants them, and small builders for the JSON Schemas of their arguments. */
final class McpTools {
    /** Every result is an object (the HTTP API's JSON); declaring it keeps the SDK from logging undeclared structured content. */
    static final Map<String, Object> OUTPUT_SCHEMA = Map.of("type", "object");

    private McpTools() {}

    static McpSchema.Tool describe(ToolSpec spec) {
        return McpSchema.Tool.builder()
                .name(spec.name())
                .title(spec.title())
                .description(spec.description())
                .inputSchema(spec.inputSchema())
                .outputSchema(OUTPUT_SCHEMA)
                .annotations(new McpSchema.ToolAnnotations(
                        spec.title(), spec.readOnly(), spec.destructive(), spec.idempotent(), false, null))
                .build();
    }

    /** {@code {"type":"object","properties":{…},"required":[…],"additionalProperties":false}}. */
    static Map<String, Object> object(Map<String, Object> properties, List<String> required) {
        Map<String, Object> schema = new LinkedHashMap<>();
        schema.put("type", "object");
        schema.put("properties", properties);
        if (!required.isEmpty()) {
            schema.put("required", required);
        }
        schema.put("additionalProperties", false);
        return schema;
    }

    static Map<String, Object> noArguments() {
        return object(Map.of(), List.of());
    }

    static Map<String, Object> string(String description, String pattern, int maxLength) {
        Map<String, Object> schema = new LinkedHashMap<>();
        schema.put("type", "string");
        schema.put("description", description);
        if (pattern != null) {
            schema.put("pattern", pattern);
        }
        schema.put("maxLength", maxLength);
        return schema;
    }

    /** A string of a value type's syntax: its {@code pattern} and {@code maxLength} come from {@code shape}. */
    static Map<String, Object> string(String description, NameShape shape) {
        return string(description, shape.jsonPattern(), shape.maxLength());
    }

    /** The {@code idempotency_key} argument of the tools that make something (request_sandbox, checkpoint_sandbox). */
    static Map<String, Object> idempotencyKey() {
        return string(
                "optional key of yours (e.g. a UUID): a retry with the same key and arguments answers the first call's"
                        + " result (the same sandbox and credentials) instead of running again",
                IdempotencyKey.SHAPE);
    }

    static Map<String, Object> arrayOf(Map<String, Object> items, String description, int maxItems) {
        Map<String, Object> schema = new LinkedHashMap<>();
        schema.put("type", "array");
        schema.put("description", description);
        schema.put("items", items);
        schema.put("maxItems", maxItems);
        return schema;
    }
}
