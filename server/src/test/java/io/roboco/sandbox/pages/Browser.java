package io.roboco.sandbox.pages;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.Comparator;
import java.util.Map;
import java.util.stream.Stream;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebDriverException;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * Debian's headless Chromium driven through Debian's chromedriver (no Selenium Manager, no
 * download), a fresh profile per run, screenshots under {@code target/screenshots/}.
 */
final class Browser implements AutoCloseable {
    static final String CHROMIUM = "/usr/bin/chromium";
    static final String CHROMEDRIVER = "/usr/bin/chromedriver";
    /** The dashboard module's {@code target/screenshots/} when run from the reactor, else this module's. */
    static final Path SCREENSHOTS = screenshotDir();

    private final Path profile;
    final WebDriver driver;
    private String base;

    Browser() throws IOException {
        for (String binary : new String[] {CHROMIUM, CHROMEDRIVER}) {
            if (!Files.isExecutable(Path.of(binary))) {
                throw new IllegalStateException(
                        binary + " is missing; install it with: apt-get install -y chromium chromium-driver "
                                + "(./scripts/test.sh does, through scripts/lib/prereqs.sh)");
            }
        }
        profile = Files.createTempDirectory("roboco-chromium-");
        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM);
        options.addArguments(
                "--headless=new",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-dev-shm-usage",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--user-data-dir=" + profile,
                "--window-size=1366,900",
                "--hide-scrollbars");
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(new File(CHROMEDRIVER))
                .usingAnyFreePort()
                .build();
        driver = new ChromeDriver(service, options);
        driver.manage().timeouts().pageLoadTimeout(Duration.ofSeconds(30));
        Files.createDirectories(SCREENSHOTS);
    }

    private static Path screenshotDir() {
        Path dashboard = Path.of("").toAbsolutePath().resolveSibling("dashboard");
        Path base =
                Files.isDirectory(dashboard.resolve("src/main/jte")) ? dashboard.resolve("target") : Path.of("target");
        return base.resolve("screenshots");
    }

    void base(int port) {
        this.base = "http://127.0.0.1:" + port;
    }

    void open(String path) {
        driver.get(base + path);
    }

    String path() {
        return driver.getCurrentUrl().substring(base.length());
    }

    WebElement find(String css) {
        return driver.findElement(By.cssSelector(css));
    }

    /** Clicks something that loads a new page and waits until the old page is gone, so the next read sees the new one. */
    void clickAndWait(String css) {
        WebElement oldPage = driver.findElement(By.tagName("html"));
        find(css).click();
        new WebDriverWait(driver, Duration.ofSeconds(60)).until(d -> gone(oldPage));
    }

    /**
     * Whether the element's document has been replaced. Chromium reports that either as a stale
     * element or, mid-navigation, as an inspector error "Node … does not belong to the document".
     */
    private static boolean gone(WebElement element) {
        try {
            element.isEnabled();
            return false;
        } catch (StaleElementReferenceException e) {
            return true;
        } catch (WebDriverException e) {
            if (String.valueOf(e.getMessage()).contains("does not belong to the document")) {
                return true;
            }
            throw e;
        }
    }

    /**
     * Makes the page's viewport exactly {@code width} x {@code height} CSS pixels (DevTools device metrics, scale 1),
     * as a desktop browser window of that size shows it, and checks that the page sees that width.
     */
    void viewport(int width, int height) {
        ((ChromeDriver) driver)
                .executeCdpCommand(
                        "Emulation.setDeviceMetricsOverride",
                        Map.of("width", width, "height", height, "deviceScaleFactor", 1, "mobile", false));
        Object inner = script("return window.innerWidth;");
        if (((Number) inner).intValue() != width) {
            throw new AssertionError("asked for a " + width + " px viewport, the page sees " + inner);
        }
    }

    /** Runs {@code js} in the page (WebDriver's script call, which the page's CSP does not govern). */
    Object script(String js, Object... args) {
        return ((JavascriptExecutor) driver).executeScript(js, args);
    }

    boolean has(String css) {
        return !driver.findElements(By.cssSelector(css)).isEmpty();
    }

    String text(String css) {
        return find(css).getText();
    }

    /** Clicks a checkbox until it is in the wanted state (via its label when the input itself is styled away). */
    void check(String id, boolean wanted) {
        WebElement box = find("#" + id);
        if (box.isSelected() != wanted) {
            driver.findElement(By.cssSelector("label:has(#" + id + ")")).click();
        }
        if (box.isSelected() != wanted) {
            throw new AssertionError("checkbox " + id + " did not become " + wanted);
        }
    }

    /** A screenshot of the whole page, beyond the 1366x900 viewport when the page is longer (DevTools capture). */
    @SuppressWarnings("unchecked")
    Path screenshot(String name) {
        ChromeDriver chrome = (ChromeDriver) driver;
        Map<String, Object> size = (Map<String, Object>)
                chrome.executeCdpCommand("Page.getLayoutMetrics", Map.of()).get("cssContentSize");
        double width = ((Number) size.get("width")).doubleValue();
        double height = Math.max(((Number) size.get("height")).doubleValue(), 600);
        Map<String, Object> shot = chrome.executeCdpCommand(
                "Page.captureScreenshot",
                Map.of(
                        "format",
                        "png",
                        "captureBeyondViewport",
                        true,
                        "clip",
                        Map.of("x", 0, "y", 0, "width", width, "height", height, "scale", 1)));
        Path file = SCREENSHOTS.resolve(name + ".png");
        try {
            Files.write(file, Base64.getDecoder().decode((String) shot.get("data")));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return file;
    }

    @Override
    public void close() {
        try {
            driver.quit();
        } finally {
            try (Stream<Path> files = Files.walk(profile)) {
                files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            } catch (IOException ignored) {
                // a temp profile left behind is harmless
            }
        }
    }
}
