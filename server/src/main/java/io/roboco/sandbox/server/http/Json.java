package io.roboco.sandbox.server.http;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.javalin.http.Context;
import java.util.LinkedHashMap;
import java.util.Map;

/** JSON in and out. Bodies are objects; duplicate keys and trailing garbage are malformed. */
final class Json {
    private static final ObjectMapper MAPPER = new ObjectMapper()
            .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
    private static final TypeReference<LinkedHashMap<String, Object>> OBJECT = new TypeReference<>() {};

    private Json() {}

    /** The request body as an object; an empty body is an empty object. */
    static Map<String, Object> body(Context ctx) {
        String body = ctx.body();
        if (body == null || body.isBlank()) {
            return new LinkedHashMap<>();
        }
        try {
            Map<String, Object> parsed = MAPPER.readValue(body, OBJECT);
            if (parsed == null) {
                throw ApiError.badRequest("request body must be a JSON object");
            }
            return parsed;
        } catch (JsonProcessingException e) {
            // The parser's own message can quote the body; say where, not what.
            throw ApiError.badRequest("request body is not a JSON object (malformed JSON near line "
                    + (e.getLocation() == null
                            ? "?"
                            : e.getLocation().getLineNr() + ", column "
                                    + e.getLocation().getColumnNr())
                    + ")");
        }
    }

    static void write(Context ctx, int status, Object body) {
        try {
            ctx.status(status).contentType("application/json").result(MAPPER.writeValueAsString(body));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(
                    "response not serializable: " + e.getClass().getSimpleName());
        }
    }

    /** The JSON text of {@code body}, for a line of a streamed answer. */
    static String string(Object body) {
        try {
            return MAPPER.writeValueAsString(body);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(
                    "response not serializable: " + e.getClass().getSimpleName());
        }
    }

    static Map<String, Object> error(String code, String message) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("error", code);
        body.put("message", message);
        return body;
    }
}
