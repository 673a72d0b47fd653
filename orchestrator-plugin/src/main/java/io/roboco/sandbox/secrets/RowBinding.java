package io.roboco.sandbox.secrets;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * What a sealed credential belongs to, fed to AES-GCM as associated data: the sandbox id, its owner
 * and the container id. Length-prefixed, so no two different bindings encode alike.
 */
public record RowBinding(String sandboxId, String owner, String containerId) {

    byte[] associatedData() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (String part : List.of(nonNull(sandboxId), nonNull(owner), nonNull(containerId))) {
            byte[] utf8 = part.getBytes(StandardCharsets.UTF_8);
            out.write(utf8.length >>> 24);
            out.write(utf8.length >>> 16);
            out.write(utf8.length >>> 8);
            out.write(utf8.length);
            out.writeBytes(utf8);
        }
        return out.toByteArray();
    }

    private static String nonNull(String s) {
        return s == null ? "" : s;
    }
}
