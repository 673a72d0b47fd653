package io.roboco.sandbox.server.config;

import io.roboco.sandbox.inspect.InspectionPolicy;
import java.net.URI;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Settings of the MCP server, read from {@code ROBOCO_SANDBOX_MCP_*} at start. Fails closed: an unknown
 * {@code ROBOCO_SANDBOX_MCP_*} name or a malformed value refuses the start with a sentence naming the
 * setting; nothing is ignored and nothing falls back to a more permissive mode.
 *
 * <ul>
 *   <li>{@code ROBOCO_SANDBOX_MCP_ROW_CAP}: the most rows a tool returns (1-{@value #MAX_ROW_CAP}; default
 *       {@value #DEFAULT_ROW_CAP}); more are cut off and the answer says {@code truncated}.</li>
 *   <li>{@code ROBOCO_SANDBOX_MCP_FETCH_BYTES}: the most bytes of rows (or of a plan) one inspection call may bring
 *       from the sandbox's database into the server (64 KiB-256 MiB; default 4 MiB): the database cuts long values and
 *       rows come through a cursor a few at a time, so no result of any size is buffered whole.</li>
 *   <li>{@code ROBOCO_SANDBOX_MCP_URL}: the {@code /mcp} address written into minted client configurations
 *       (default {@code http://127.0.0.1:<port>/mcp}); set it when agents reach the server by another name.</li>
 *   <li>{@code ROBOCO_SANDBOX_MCP_ALLOWED_HOSTS}: comma-separated {@code Host} header values {@code /mcp}
 *       accepts ({@code host:*} for any port; default {@value #DEFAULT_ALLOWED_HOSTS}), against DNS rebinding.
 *       A request carrying an {@code Origin} header (a browser) is always refused.</li>
 *   <li>{@code ROBOCO_SANDBOX_MCP_TOKEN}: not a server setting; the stdio bridge's token, allowed here so one
 *       environment can serve both.</li>
 * </ul>
 *
 * @param rowCap        most rows per tool answer
 * @param fetchBytes    most bytes one inspection call brings into the server
 * @param publicUrl     the MCP address handed to agents, or null for the loopback default
 * @param allowedHosts  accepted Host header values
 */
public record McpSettings(int rowCap, int fetchBytes, String publicUrl, List<String> allowedHosts) {
    public static final String PREFIX = "ROBOCO_SANDBOX_MCP_";
    public static final String ROW_CAP = PREFIX + "ROW_CAP";
    public static final String FETCH_BYTES = PREFIX + "FETCH_BYTES";
    public static final String URL = PREFIX + "URL";
    public static final String ALLOWED_HOSTS = PREFIX + "ALLOWED_HOSTS";
    /** The stdio bridge's token: read by {@code roboco-sandbox mcp}, not by the server. */
    public static final String TOKEN = PREFIX + "TOKEN";

    public static final int DEFAULT_ROW_CAP = 200;
    public static final int MAX_ROW_CAP = 10_000;
    public static final String DEFAULT_ALLOWED_HOSTS = "127.0.0.1:*,localhost:*,[::1]:*";
    private static final Set<String> KNOWN = known();

    /** This record's settings, and the agent-token limits {@link EdgeSettings} reads under the same prefix. */
    private static Set<String> known() {
        Set<String> known = new TreeSet<>(Set.of(ROW_CAP, FETCH_BYTES, URL, ALLOWED_HOSTS, TOKEN));
        known.addAll(EdgeSettings.MCP_NAMES);
        return Set.copyOf(known);
    }

    public McpSettings {
        if (rowCap < 1 || rowCap > MAX_ROW_CAP) {
            throw new ConfigException(ROW_CAP + "=" + rowCap + " is out of range; use 1-" + MAX_ROW_CAP + " (default "
                    + DEFAULT_ROW_CAP + ")");
        }
        if (fetchBytes < InspectionPolicy.MIN_FETCH_BYTES || fetchBytes > InspectionPolicy.MAX_FETCH_BYTES) {
            throw new ConfigException(FETCH_BYTES + "=" + fetchBytes + " is out of range; use "
                    + InspectionPolicy.MIN_FETCH_BYTES + "-" + InspectionPolicy.MAX_FETCH_BYTES + " (default "
                    + InspectionPolicy.DEFAULT_FETCH_BYTES + ")");
        }
        if (publicUrl != null) {
            requireHttpUrl(URL, publicUrl);
        }
        allowedHosts = List.copyOf(allowedHosts);
        if (allowedHosts.isEmpty()) {
            throw new ConfigException(
                    ALLOWED_HOSTS + " is empty; name at least one host (default " + DEFAULT_ALLOWED_HOSTS + ")");
        }
        for (String host : allowedHosts) {
            if (host.isBlank() || host.contains("/") || host.chars().anyMatch(c -> c <= 0x20 || c >= 0x7f)) {
                throw new ConfigException(ALLOWED_HOSTS + " holds '" + host + "', which is not a host[:port]; e.g. "
                        + DEFAULT_ALLOWED_HOSTS);
            }
        }
        if (publicUrl != null) {
            URI uri = URI.create(publicUrl);
            String authority = uri.getPort() < 0 ? uri.getHost() : uri.getHost() + ":" + uri.getPort();
            if (allowedHosts.stream().noneMatch(allowed -> hostMatches(allowed, authority))) {
                throw new ConfigException(
                        URL + " names " + authority + ", which " + ALLOWED_HOSTS + " (" + String.join(",", allowedHosts)
                                + ") does not accept, so every agent given that address would be refused; add it there");
            }
        }
    }

    /** The SDK's Host rule: equal, or {@code host:*} for any port of that host. */
    static boolean hostMatches(String allowed, String host) {
        if (allowed.endsWith(":*")) {
            String base = allowed.substring(0, allowed.length() - 2);
            return host.equals(base) || host.startsWith(base + ":");
        }
        return allowed.equals(host);
    }

    public static McpSettings defaults() {
        return new McpSettings(
                DEFAULT_ROW_CAP, InspectionPolicy.DEFAULT_FETCH_BYTES, null, List.of(DEFAULT_ALLOWED_HOSTS.split(",")));
    }

    /** Reads every {@code ROBOCO_SANDBOX_MCP_*} setting; an unknown one is refused, never ignored. */
    public static McpSettings fromEnv(Map<String, String> env) {
        Set<String> unknown = new TreeSet<>();
        for (String key : env.keySet()) {
            if (key.startsWith(PREFIX) && !KNOWN.contains(key)) {
                unknown.add(key);
            }
        }
        if (!unknown.isEmpty()) {
            throw new ConfigException("unknown MCP setting(s) " + String.join(", ", unknown) + "; known: "
                    + String.join(", ", new TreeSet<>(KNOWN)) + " (a misspelt setting is refused rather than ignored)");
        }
        int rowCap = DEFAULT_ROW_CAP;
        String raw = EnvValues.value(env, ROW_CAP);
        if (raw != null) {
            try {
                rowCap = Integer.parseInt(raw);
            } catch (NumberFormatException e) {
                throw new ConfigException(ROW_CAP + "='" + raw + "' is not a whole number; use 1-" + MAX_ROW_CAP
                        + " (default " + DEFAULT_ROW_CAP + ")");
            }
        }
        int fetchBytes = InspectionPolicy.DEFAULT_FETCH_BYTES;
        String fetch = EnvValues.value(env, FETCH_BYTES);
        if (fetch != null) {
            try {
                fetchBytes = Integer.parseInt(fetch);
            } catch (NumberFormatException e) {
                throw new ConfigException(FETCH_BYTES + "='" + fetch + "' is not a whole number of bytes; use "
                        + InspectionPolicy.MIN_FETCH_BYTES + "-" + InspectionPolicy.MAX_FETCH_BYTES + " (default "
                        + InspectionPolicy.DEFAULT_FETCH_BYTES + ")");
            }
        }
        String hosts = EnvValues.value(env, ALLOWED_HOSTS);
        List<String> allowed = List.of((hosts == null ? DEFAULT_ALLOWED_HOSTS : hosts).split(",", -1)).stream()
                .map(String::trim)
                .toList();
        return new McpSettings(rowCap, fetchBytes, EnvValues.value(env, URL), allowed);
    }

    /** What the inspection tools allow: the defaults, with this row cap and fetch budget. */
    public InspectionPolicy inspection() {
        return InspectionPolicy.defaults().withMaxRows(rowCap).withFetchBytes(fetchBytes);
    }

    /** The address minted configurations name: the configured one, or loopback on {@code port}. */
    public String url(int port) {
        return publicUrl != null ? publicUrl : "http://127.0.0.1:" + port + "/mcp";
    }

    static void requireHttpUrl(String setting, String url) {
        URI uri;
        try {
            uri = new URI(url);
        } catch (Exception e) {
            throw new ConfigException(setting + "='" + url + "' is not a URL; e.g. http://127.0.0.1:7070/mcp");
        }
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        if (!(scheme.equals("http") || scheme.equals("https"))
                || uri.getHost() == null
                || uri.getUserInfo() != null
                || uri.getQuery() != null
                || uri.getFragment() != null) {
            throw new ConfigException(
                    setting + "='" + url + "' must be an http(s) URL with a host and no user, query or"
                            + " fragment; e.g. http://127.0.0.1:7070/mcp");
        }
    }
}
