package io.roboco.sandbox.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.modelcontextprotocol.json.schema.JsonSchemaValidator;
import io.modelcontextprotocol.json.schema.jackson2.DefaultJsonSchemaValidator;
import io.roboco.sandbox.engine.CheckpointName;
import io.roboco.sandbox.engine.NameShape;
import io.roboco.sandbox.request.AgentSlug;
import io.roboco.sandbox.request.Owner;
import io.roboco.sandbox.request.ProjectId;
import io.roboco.sandbox.request.SandboxId;
import io.roboco.sandbox.request.SandboxName;
import io.roboco.sandbox.request.ServiceName;
import io.roboco.sandbox.request.TemplateName;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The MCP tools' JSON Schemas take their name patterns from the value types, and the schema validator (ECMA-262
 * regular expressions) accepts exactly what the value types (Java regular expressions) accept.
 */
class NameSchemasTest {
    private static final List<String> SAMPLES = List.of(
            "dev-1",
            "postgres",
            "shop.v2",
            "Shop",
            "before_migration",
            "default",
            "job:ci-42",
            "job:",
            "-x",
            "dev-1\n",
            "\ndev-1",
            "a b",
            "../x",
            "a/b",
            "x\ny",
            "ü",
            "",
            "a".repeat(30),
            "a".repeat(31),
            "a".repeat(32),
            "a".repeat(33),
            "a".repeat(63),
            "a".repeat(64),
            "a".repeat(65),
            "job:" + "a".repeat(63),
            "job:" + "a".repeat(64),
            "sbx_0a1b2c3d4e5f60718293",
            "sbx_",
            "sbx_ABC",
            "sbx_0a1b\n",
            "sbx_" + "f".repeat(64),
            "sbx_" + "f".repeat(65));
    private final JsonSchemaValidator validator = new DefaultJsonSchemaValidator(new ObjectMapper());

    @Test
    void theSchemaOfEachShapeAgreesWithItsValueType() {
        for (NameShape shape : List.of(
                AgentSlug.SHAPE,
                Owner.SHAPE,
                ServiceName.SHAPE,
                ProjectId.SHAPE,
                SandboxName.SHAPE,
                SandboxName.NAMED,
                SandboxId.SHAPE,
                TemplateName.SHAPE,
                CheckpointName.SHAPE)) {
            Map<String, Object> schema = McpTools.object(Map.of("v", McpTools.string("a name", shape)), List.of("v"));
            assertThat(validator.validateSchema(schema).valid())
                    .as(shape.toString())
                    .isTrue();
            for (String sample : SAMPLES) {
                assertThat(validator.validate(schema, Map.of("v", sample)).valid())
                        .as("%s: '%s'", shape, sample)
                        .isEqualTo(shape.matches(sample));
            }
        }
    }

    @Test
    void theToolsDeclareTheValueTypesPatterns() {
        String described = List.of(new VerbTools(null).specs(), new DataTools(null, null).specs())
                .toString();
        assertThat(described)
                .contains(
                        ServiceName.SHAPE.jsonPattern(),
                        SandboxName.NAMED.jsonPattern(),
                        SandboxId.SHAPE.jsonPattern(),
                        TemplateName.SHAPE.jsonPattern(),
                        CheckpointName.SHAPE.jsonPattern());
    }
}
