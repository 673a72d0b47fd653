package io.roboco.sandbox.server.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.javalin.Javalin;
import io.javalin.http.HandlerType;
import io.javalin.router.ParsedEndpoint;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Iterator;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;

/**
 * The OpenAPI 3.1 document of the HTTP API (docs/openapi.yaml, in the jar beside this class), served as JSON at
 * {@code GET /api/openapi.json}, and the comparison of its operations with a Javalin app's routes: a route without an
 * entry, or an entry without a route, is drift. The API is {@code /healthz}, {@code /metrics}, {@code /api/**} and the
 * MCP servlet at {@code /mcp}; the dashboard's pages are not part of it.
 */
public final class OpenApi {
    public static final String RESOURCE = "openapi.yaml";
    /** What runs beside Javalin as a servlet (no Javalin route): the MCP endpoint. */
    public static final Set<String> SERVLET_OPERATIONS = Set.of("GET /mcp", "POST /mcp", "DELETE /mcp");

    private static final Set<HandlerType> METHODS =
            Set.of(HandlerType.GET, HandlerType.POST, HandlerType.PUT, HandlerType.DELETE, HandlerType.PATCH);
    private static final Set<String> VERBS = Set.of("get", "post", "put", "delete", "patch");

    private static volatile String json;

    private OpenApi() {}

    /** The document as parsed YAML. */
    public static JsonNode document() {
        try (InputStream in = OpenApi.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException(RESOURCE + " is missing beside " + OpenApi.class.getName()
                        + "; the server module's build copies docs/openapi.yaml there");
            }
            return new YAMLMapper().readTree(in);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + RESOURCE, e);
        }
    }

    /** The document as JSON text, read once. */
    public static String json() {
        String j = json;
        if (j == null) {
            try {
                j = new ObjectMapper().writeValueAsString(document());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            json = j;
        }
        return j;
    }

    /** {@code "METHOD /path"} of every operation in {@code doc}. */
    public static Set<String> operations(JsonNode doc) {
        Set<String> out = new TreeSet<>();
        Iterator<String> paths = doc.path("paths").fieldNames();
        while (paths.hasNext()) {
            String path = paths.next();
            doc.path("paths").path(path).fieldNames().forEachRemaining(verb -> {
                if (VERBS.contains(verb)) {
                    out.add(verb.toUpperCase(Locale.ROOT) + " " + path);
                }
            });
        }
        return out;
    }

    /** {@code "METHOD /path"} of every API route {@code app} has (its dashboard pages left out), and the servlet's. */
    public static Set<String> routes(Javalin app) {
        Set<String> out = new TreeSet<>(SERVLET_OPERATIONS);
        for (ParsedEndpoint e : app.unsafeConfig().pvt.internalRouter.allHttpHandlers()) {
            String path = e.getEndpoint().getPath();
            if (METHODS.contains(e.getEndpoint().getMethod()) && inApi(path)) {
                out.add(e.getEndpoint().getMethod().name() + " " + path);
            }
        }
        return out;
    }

    public static boolean inApi(String path) {
        return path.equals("/healthz") || path.equals("/metrics") || path.startsWith("/api/") || path.equals("/mcp");
    }

    /** Routes without an entry, entries without a route. */
    public record Drift(Set<String> undocumented, Set<String> unrouted) {
        public boolean none() {
            return undocumented.isEmpty() && unrouted.isEmpty();
        }

        @Override
        public String toString() {
            return "routes without an entry in docs/openapi.yaml: " + undocumented
                    + "; entries in docs/openapi.yaml without a route: " + unrouted;
        }
    }

    public static Drift drift(Set<String> routes, JsonNode doc) {
        Set<String> documented = operations(doc);
        Set<String> undocumented = new TreeSet<>(routes);
        undocumented.removeAll(documented);
        Set<String> unrouted = new TreeSet<>(documented);
        unrouted.removeAll(routes);
        return new Drift(undocumented, unrouted);
    }
}
