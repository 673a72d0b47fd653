package io.roboco.sandbox.testkit.kubernetes;

import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * fabric8's CRUD dispatcher (real paths, label selectors, watches, status subresource) plus what a kubelet answers
 * through the API server: {@code pods/exec} (a websocket, {@code v4.channel.k8s.io}) and {@code pods/log}, both
 * served by the {@link DockerKubelet} from the pod's container. Every request is recorded (method, path, user agent),
 * so a test can check the calls a client made against a Role.
 */
final class ClusterDispatcher extends KubernetesCrudDispatcher {
    /** One request as the API server saw it. */
    record Call(String method, String path, String userAgent) {}

    private static final Pattern SUBRESOURCE =
            Pattern.compile("^/api/v1/namespaces/([^/]+)/pods/([^/?]+)/(exec|log)(\\?.*)?$");

    private final Queue<Call> calls = new ConcurrentLinkedQueue<>();
    private volatile DockerKubelet kubelet;

    void attach(DockerKubelet kubelet) {
        this.kubelet = kubelet;
    }

    List<Call> calls() {
        return new ArrayList<>(calls);
    }

    @Override
    public MockResponse dispatch(RecordedRequest request) {
        String path = request.getPath();
        calls.add(new Call(request.getMethod(), path, String.valueOf(request.getHeader("User-Agent"))));
        Matcher m = SUBRESOURCE.matcher(path);
        if (m.matches() && kubelet != null) {
            String pod = m.group(2);
            Map<String, List<String>> query = query(m.group(4));
            if (m.group(3).equals("exec")) {
                return kubelet.exec(pod, query);
            }
            // A real API server answers 404 for the log of a deleted pod at once, while this kubelet learns of the
            // deletion from its watch a moment later: the stored pod object decides, as it does for the API.
            MockResponse stored = handleGet("/api/v1/namespaces/" + m.group(1) + "/pods/" + pod);
            return stored.code() == 404 ? stored : kubelet.log(pod, query);
        }
        return super.dispatch(request);
    }

    static Map<String, List<String>> query(String raw) {
        Map<String, List<String>> out = new LinkedHashMap<>();
        if (raw == null || raw.length() < 2) {
            return out;
        }
        for (String pair : raw.substring(1).split("&")) {
            int eq = pair.indexOf('=');
            String key = URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
            String value = eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
            out.computeIfAbsent(key, k -> new ArrayList<>()).add(value);
        }
        return out;
    }
}
