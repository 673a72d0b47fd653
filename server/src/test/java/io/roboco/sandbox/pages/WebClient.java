package io.roboco.sandbox.pages;

import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** A browser without a browser: keeps cookies, never follows redirects, posts forms. */
public final class WebClient {
    private static final Pattern CSRF = Pattern.compile("name=\"csrf\" value=\"([^\"]+)\"");

    private final int port;
    private final HttpClient http = HttpClient.newBuilder()
            .followRedirects(HttpClient.Redirect.NEVER)
            .connectTimeout(Duration.ofSeconds(5))
            .build();
    final Map<String, String> cookies = new LinkedHashMap<>();

    public WebClient(int port) {
        this.port = port;
    }

    public record Reply(int status, String body, HttpResponse<String> raw) {
        public String header(String name) {
            return raw.headers().firstValue(name).orElse(null);
        }

        List<String> setCookies() {
            return raw.headers().allValues("Set-Cookie");
        }

        /** The CSRF token in the page's first form. */
        public String csrf() {
            Matcher m = CSRF.matcher(body);
            if (!m.find()) {
                throw new AssertionError("no csrf field in page: " + body);
            }
            return m.group(1);
        }
    }

    public Reply get(String path) {
        return send(HttpRequest.newBuilder(uri(path)).GET());
    }

    /** A GET as a browser sends it, asking for HTML. */
    Reply browse(String path) {
        return send(HttpRequest.newBuilder(uri(path))
                .header("Accept", "text/html,application/xhtml+xml,*/*;q=0.8")
                .GET());
    }

    /** A form post; {@code fields} are name/value pairs, names may repeat. */
    Reply post(String path, String... fields) {
        List<String> parts = new ArrayList<>();
        for (int i = 0; i < fields.length; i += 2) {
            parts.add(enc(fields[i]) + "=" + enc(fields[i + 1]));
        }
        return send(HttpRequest.newBuilder(uri(path))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(String.join("&", parts))));
    }

    Reply json(String method, String path, String token, String body) {
        HttpRequest.Builder b = HttpRequest.newBuilder(uri(path))
                .header("Authorization", "Bearer " + token)
                .method(
                        method,
                        body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        if (body != null) {
            b.header("Content-Type", "application/json");
        }
        return send(b);
    }

    /** Signs in through the form; returns the page the redirect lands on. */
    public Reply signIn(String token) {
        Reply form = get("/login");
        Reply r = post("/login", "csrf", form.csrf(), "token", token);
        if (r.status() != 303) {
            throw new AssertionError("sign-in failed: " + r.status() + " " + r.body());
        }
        return get(r.header("Location"));
    }

    private Reply send(HttpRequest.Builder b) {
        b.timeout(Duration.ofSeconds(120)); // provisioning on a busy Docker host can take tens of seconds
        if (!cookies.isEmpty()) {
            List<String> pairs = new ArrayList<>();
            cookies.forEach((k, v) -> pairs.add(k + "=" + v));
            b.header("Cookie", String.join("; ", pairs));
        }
        try {
            HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
            for (String set : r.headers().allValues("Set-Cookie")) {
                String pair = set.split(";", 2)[0];
                String name = pair.substring(0, pair.indexOf('='));
                String value = pair.substring(pair.indexOf('=') + 1);
                if (value.isEmpty() || set.contains("Max-Age=0")) {
                    cookies.remove(name);
                } else {
                    cookies.put(name, value);
                }
            }
            return new Reply(r.statusCode(), r.body(), r);
        } catch (Exception e) {
            throw new AssertionError("request failed", e);
        }
    }

    private URI uri(String path) {
        return URI.create("http://127.0.0.1:" + port + path);
    }

    private static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }
}
