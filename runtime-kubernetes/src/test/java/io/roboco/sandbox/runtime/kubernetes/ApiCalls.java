package io.roboco.sandbox.runtime.kubernetes;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** A recorded request ("METHOD path") read as RBAC sees it: {@code group/resource[/subresource]:verb}. */
final class ApiCalls {
    private static final Pattern PATH = Pattern.compile(
            "^/(?:api/v1|apis/([^/]+)/[^/]+)(?:/namespaces/[^/]+)?/([a-z]+)(?:/([^/?]+))?(?:/([a-z]+))?(?:\\?(.*))?$");

    private ApiCalls() {}

    /** The RBAC rule a request needs, or null for a non-resource path ({@code /version}: everyone's). */
    static String rule(String call) {
        int space = call.indexOf(' ');
        String method = call.substring(0, space);
        String path = call.substring(space + 1);
        if (path.startsWith("/version")) {
            return null;
        }
        Matcher m = PATH.matcher(path);
        if (!m.matches()) {
            throw new IllegalArgumentException("not an API path: " + call);
        }
        String group = m.group(1) == null ? "" : m.group(1);
        String resource = m.group(2) + (m.group(4) == null ? "" : "/" + m.group(4));
        boolean named = m.group(3) != null;
        String query = m.group(5) == null ? "" : m.group(5);
        String verb = switch (method) {
            case "GET" -> query.contains("watch=true") ? "watch" : named ? "get" : "list";
            case "POST" -> "create";
            case "PUT" -> "update";
            case "PATCH" -> "patch";
            case "DELETE" -> named ? "delete" : "deletecollection";
            default -> throw new IllegalArgumentException("unknown method in " + call);
        };
        return group + "/" + resource + ":" + verb;
    }
}
