package io.roboco.sandbox.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import io.javalin.Javalin;
import io.javalin.http.HandlerType;
import io.roboco.sandbox.engine.CheckpointName;
import io.roboco.sandbox.engine.NameShape;
import io.roboco.sandbox.request.AgentSlug;
import io.roboco.sandbox.request.IdempotencyKey;
import io.roboco.sandbox.request.Labels;
import io.roboco.sandbox.request.Owner;
import io.roboco.sandbox.request.ProjectId;
import io.roboco.sandbox.request.SandboxId;
import io.roboco.sandbox.request.SandboxName;
import io.roboco.sandbox.request.ServiceName;
import io.roboco.sandbox.request.SnapshotName;
import io.roboco.sandbox.request.TemplateName;
import io.roboco.sandbox.server.http.OpenApi;
import io.roboco.sandbox.testkit.ApiClient;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * docs/openapi.yaml is the server's HTTP API, route for route, and docs/http-api.md's examples are instances of it:
 * every request body sent with {@code curl -d} validates against its operation's request schema, and every JSON
 * answer shown after it against the operation's 200 schema (an error body against {@code Error}).
 */
class OpenApiContractTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final SchemaRegistry SCHEMAS = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12);

    @TempDir
    Path dir;

    @Test
    void everyRouteOfTheServerHasAnEntryAndEveryEntryARoute() {
        try (TestServer t = new TestServer(dir, true)) {
            Set<String> routes = SandboxServer.routesOf(t.server);
            assertThat(routes).contains("POST /api/sandboxes", "GET /healthz", "POST /api/clients/{owner}/token");
            OpenApi.Drift drift = OpenApi.drift(routes, OpenApi.document());
            assertThat(drift.none()).as(drift.toString()).isTrue();
        }
    }

    @Test
    void aRouteAddedWithoutAnEntryIsCaughtAndSoIsAnEntryWithoutARoute() {
        JsonNode doc = OpenApi.document();
        Javalin app = Javalin.create();
        for (String op : OpenApi.operations(doc)) {
            if (!OpenApi.SERVLET_OPERATIONS.contains(op) && !op.equals("DELETE /api/templates/{name}")) {
                String[] parts = op.split(" ");
                app.addHttpHandler(HandlerType.valueOf(parts[0]), parts[1], ctx -> {});
            }
        }
        app.get("/api/undocumented", ctx -> {});
        app.get("/sandboxes/a-dashboard-page", ctx -> {});

        OpenApi.Drift drift = OpenApi.drift(OpenApi.routes(app), doc);

        assertThat(drift.undocumented()).containsExactly("GET /api/undocumented");
        assertThat(drift.unrouted()).containsExactly("DELETE /api/templates/{name}");
        assertThat(drift.toString()).contains("routes without an entry in docs/openapi.yaml: [GET /api/undocumented]");
    }

    /**
     * Each name pattern is written once, in its value type: every {@code pattern} of the document is a value type's
     * ({@link NameShape#jsonPattern}), but for those that are not names (a duration, a size, the tokens' prefixes).
     */
    @Test
    void everyNamePatternOfTheDocumentIsAValueTypes() {
        Set<String> shapes = Stream.of(
                        AgentSlug.SHAPE,
                        Owner.JOB,
                        Owner.SHAPE,
                        ProjectId.SHAPE,
                        ServiceName.SHAPE,
                        SandboxName.NAMED,
                        SandboxId.SHAPE,
                        TemplateName.SHAPE,
                        CheckpointName.SHAPE,
                        SnapshotName.SHAPE,
                        IdempotencyKey.SHAPE,
                        Labels.KEY)
                .map(NameShape::jsonPattern)
                .collect(Collectors.toSet());
        Set<String> notNames = Set.of("^[0-9]+(ms|s|m|h|d)$", "^[0-9]+[kmgKMG]?$", "^rbxa_", "^rbxc_");
        List<String> patterns = OpenApi.document().findValues("pattern").stream()
                .map(JsonNode::asText)
                .toList();
        assertThat(patterns).as("the document's patterns").isNotEmpty();
        assertThat(patterns.stream()
                        .filter(p -> !shapes.contains(p) && !notNames.contains(p))
                        .toList())
                .as("patterns in docs/openapi.yaml that are no value type's (write the type's jsonPattern)")
                .isEmpty();
    }

    @Test
    void theDocumentIsServedAsJsonWithoutAToken() throws Exception {
        try (TestServer t = new TestServer(dir, true)) {
            ApiClient.Reply r = t.api.send("GET", "/api/openapi.json", null, null);
            assertThat(r.status()).isEqualTo(200);
            assertThat(JSON.readTree(r.body())).isEqualTo(OpenApi.document());
            assertThat(r.json()).containsEntry("openapi", "3.1.0");
        }
    }

    @Test
    void theDocumentIsValidOpenApi31AndItsSchemasCompile() {
        JsonNode doc = OpenApi.document();
        assertThat(doc.path("openapi").asText()).isEqualTo("3.1.0");
        doc.path("components")
                .path("schemas")
                .fieldNames()
                .forEachRemaining(name -> assertThat(
                                schema(JSON.createObjectNode().put("$ref", "#/components/schemas/" + name))
                                        .validate(JSON.createObjectNode()))
                        .isNotNull());
    }

    @Test
    void everyExampleOfHttpApiMdValidates() throws IOException {
        JsonNode doc = OpenApi.document();
        List<Example> examples = examples(Files.readString(repositoryRoot().resolve("docs/http-api.md")), doc);
        List<String> failures = failures(examples, doc);
        long requests = examples.stream().filter(Example::request).count();
        long answers = examples.size() - requests;
        System.out.println("[figure] OpenApiContractTest: " + requests + " request and " + answers
                + " answer examples of docs/http-api.md validated against docs/openapi.yaml");
        assertThat(failures).as(String.join("\n", failures)).isEmpty();
        assertThat(requests).isGreaterThanOrEqualTo(15);
        assertThat(answers).isGreaterThanOrEqualTo(25);
    }

    @Test
    void anExampleThatIsNotTheSchemasFails() {
        String page = String.join(
                "\n",
                "### `PUT /api/flags/ROBOCO_SANDBOX_DB_ENABLED` — admin",
                "```sh",
                "curl -s -X PUT -H \"$ADMIN\" $API/api/flags/ROBOCO_SANDBOX_DB_ENABLED -d '{\"enabled\":\"yes\"}'",
                "```",
                "```json",
                "{\"stored\":true}",
                "```",
                "```sh",
                "curl -s -X POST -H \"$ADMIN\" $API/api/nowhere -d '{}'",
                "```");
        List<String> failures = failures(examples(page, OpenApi.document()), OpenApi.document());
        assertThat(failures).hasSize(3);
        assertThat(failures.get(0)).contains("PUT /api/flags/{name} request").contains("enabled");
        assertThat(failures.get(1)).contains("PUT /api/flags/{name} answer").contains("effective");
        assertThat(failures.get(2)).contains("no entry for POST /api/nowhere");
    }

    private static List<String> failures(List<Example> examples, JsonNode doc) {
        List<String> failures = new ArrayList<>();
        for (Example e : examples) {
            JsonNode instance;
            try {
                instance = JSON.readTree(e.json());
            } catch (IOException notJson) {
                failures.add(e.where() + ": not JSON: " + e.json());
                continue;
            }
            JsonNode schemaNode = e.operation().startsWith("no entry")
                    ? null
                    : e.request() ? requestSchema(doc, e.operation()) : answerSchema(doc, e.operation(), instance);
            if (schemaNode == null) {
                failures.add(e.where() + ": docs/openapi.yaml has no " + (e.request() ? "request" : "200")
                        + " schema for " + e.operation());
                continue;
            }
            List<Error> errors = schema(schemaNode).validate(instance);
            if (!errors.isEmpty()) {
                failures.add(
                        e.where() + " (" + e.operation() + (e.request() ? " request" : " answer") + "): " + errors);
            }
        }
        return failures;
    }

    // --- examples out of the markdown ------------------------------------------------------------------------

    /** One JSON example: a curl's {@code -d} body (request) or a json block after it (answer), and its operation. */
    record Example(String operation, boolean request, String json, String where) {}

    private static final Pattern HEADING = Pattern.compile("^### `(GET|POST|PUT|DELETE) ([^` ?]+)");
    private static final Pattern CURL_METHOD = Pattern.compile("-X (GET|POST|PUT|DELETE)");
    private static final Pattern CURL_PATH = Pattern.compile("\\$API(/[^\\s\"']*)");
    private static final Pattern CURL_BODY = Pattern.compile("-d '([^']*)'");

    /**
     * Walks the page: a {@code ### `METHOD /path`} heading names the operation of the JSON blocks under it; a curl
     * line names its own (method from {@code -X}, else POST with a body, else GET; the path matched against the
     * document's templates). Blocks under "Errors" are errors, under "Envelopes" verb envelopes.
     */
    static List<Example> examples(String markdown, JsonNode doc) {
        List<Example> out = new ArrayList<>();
        String operation = null;
        String section = "";
        String fence = null;
        StringBuilder block = new StringBuilder();
        int line = 0;
        int blockStart = 0;
        for (String raw : markdown.split("\n", -1)) {
            line++;
            if (fence == null) {
                if (raw.startsWith("## ")) {
                    section = raw.substring(3).strip();
                    operation = switch (section) {
                        case "Errors" -> "error";
                        case "Envelopes (answers of `/api/agents/{slug}/verbs/{verb}`)" ->
                            "POST /api/agents/{slug}/verbs/{verb}";
                        default -> null;
                    };
                } else if (raw.startsWith("### ")) {
                    Matcher h = HEADING.matcher(raw);
                    operation = h.find() ? match(doc, h.group(1), h.group(2)) : null;
                } else if (raw.startsWith("```")) {
                    fence = raw.substring(3).strip();
                    block.setLength(0);
                    blockStart = line;
                }
                continue;
            }
            if (!raw.startsWith("```")) {
                block.append(raw).append('\n');
                continue;
            }
            String where = "docs/http-api.md:" + blockStart;
            if (fence.equals("sh")) {
                for (String command : block.toString().replace("\\\n", " ").split("\n")) {
                    Matcher p = CURL_PATH.matcher(command);
                    if (!command.strip().startsWith("curl") || !p.find()) {
                        continue;
                    }
                    Matcher m = CURL_METHOD.matcher(command);
                    Matcher b = CURL_BODY.matcher(command);
                    boolean hasBody = b.find();
                    String method = m.find() ? m.group(1) : hasBody ? "POST" : "GET";
                    operation = match(doc, method, p.group(1));
                    if (operation == null) {
                        out.add(new Example("no entry for " + method + " " + p.group(1), true, "{}", where));
                    } else if (hasBody) {
                        out.add(new Example(operation, true, b.group(1), where));
                    }
                }
            } else if (fence.equals("json") && operation != null) {
                out.add(new Example(operation, false, block.toString().strip(), where));
            }
            fence = null;
        }
        return out;
    }

    /** The document's path template that {@code path} (query left out) is an instance of, as "METHOD /template". */
    private static String match(JsonNode doc, String method, String path) {
        String bare = path.contains("?") ? path.substring(0, path.indexOf('?')) : path;
        for (String op : OpenApi.operations(doc)) {
            String[] parts = op.split(" ");
            String regex = Pattern.quote(parts[1]).replaceAll("\\{[^}]+}", "\\\\E[^/]+\\\\Q");
            if (parts[0].equals(method.toUpperCase(Locale.ROOT)) && bare.matches(regex)) {
                return op;
            }
        }
        return null;
    }

    private static JsonNode operationNode(JsonNode doc, String operation) {
        String[] parts = operation.split(" ");
        return doc.path("paths").path(parts[1]).path(parts[0].toLowerCase(Locale.ROOT));
    }

    private static JsonNode requestSchema(JsonNode doc, String operation) {
        JsonNode body = operationNode(doc, operation).path("requestBody");
        if (body.has("$ref")) {
            body = resolve(doc, body.get("$ref").asText());
        }
        JsonNode schema = body.path("content").path("application/json").path("schema");
        return schema.isMissingNode() ? null : schema;
    }

    private static JsonNode answerSchema(JsonNode doc, String operation, JsonNode instance) {
        boolean error = instance.has("error") && instance.has("message") && !instance.has("ok");
        if (error || operation.equals("error")) {
            return JSON.createObjectNode().put("$ref", "#/components/schemas/Error");
        }
        JsonNode answer = operationNode(doc, operation).path("responses").path("200");
        if (answer.has("$ref")) {
            answer = resolve(doc, answer.get("$ref").asText());
        }
        JsonNode schema = answer.path("content").path("application/json").path("schema");
        return schema.isMissingNode() ? null : schema;
    }

    private static JsonNode resolve(JsonNode doc, String ref) {
        JsonNode n = doc;
        for (String part : ref.substring(2).split("/")) {
            n = n.path(part);
        }
        return n;
    }

    /** A schema node of the document, with the document's components beside it so its {@code $ref}s resolve. */
    private static Schema schema(JsonNode node) {
        ObjectNode wrapper = JSON.createObjectNode();
        wrapper.put("$schema", "https://json-schema.org/draft/2020-12/schema");
        wrapper.set("allOf", JSON.createArrayNode().add(node));
        wrapper.set("components", OpenApi.document().path("components"));
        return SCHEMAS.getSchema(wrapper.toString());
    }

    private static Path repositoryRoot() {
        Path dir = Path.of("").toAbsolutePath();
        while (dir != null && !Files.isRegularFile(dir.resolve("docs/http-api.md"))) {
            dir = dir.getParent();
        }
        assertThat(dir)
                .as("repository root above " + Path.of("").toAbsolutePath())
                .isNotNull();
        return dir;
    }
}
