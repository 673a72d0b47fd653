package io.roboco.sandbox.engine;

/** An allowlisted feature that the running image does not carry (e.g. pgvector on a Debian image). */
public final class FeatureUnavailableException extends Exception {
    private final String feature;
    private final String image;

    public FeatureUnavailableException(String engine, String feature, String image, String detail) {
        super(engine + " feature '" + feature + "' is allowlisted but not available in image '" + image + "'"
                + (detail == null || detail.isBlank() ? "" : " (" + detail + ")")
                + "; use an image that ships it, or drop '" + feature + "' from the request");
        this.feature = feature;
        this.image = image;
    }

    public String feature() {
        return feature;
    }

    public String image() {
        return image;
    }
}
