package io.neptune.examples.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * Headless Debian Chromium driven by Selenium with explicit paths, so Selenium Manager never
 * downloads anything. {@link #open} skips the calling test, saying why, where the browser or its
 * driver is not installed; {@link #close()} quits the browser and stops the driver.
 */
final class Browser implements AutoCloseable {
    static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");
    static final Duration WAIT = Duration.ofSeconds(60);

    private final ChromeDriverService service;
    private final WebDriver driver;

    private Browser(ChromeDriverService service, WebDriver driver) {
        this.service = service;
        this.driver = driver;
    }

    /** Skips the calling test, saying why, if the browser or its driver is not installed. */
    static void assumeInstalled() {
        assumeTrue(Files.isExecutable(CHROMIUM) && Files.isExecutable(CHROMEDRIVER),
                "skipped: needs " + CHROMIUM + " and " + CHROMEDRIVER
                        + " (apt-get install chromium chromium-driver; .ci/run installs them)");
    }

    /** Starts the browser with its profile in {@code profile}; skips the test if it is not installed. */
    static Browser open(Path profile) {
        assumeInstalled();
        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM.toFile());
        options.addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run",
                "--user-data-dir=" + profile.toAbsolutePath(), "--window-size=1360,1000", "--lang=en-US");
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(CHROMEDRIVER.toFile()).usingAnyFreePort().build();
        try {
            return new Browser(service, new ChromeDriver(service, options));
        } catch (RuntimeException e) {
            service.stop();
            throw e;
        }
    }

    WebDriver driver() {
        return driver;
    }

    /**
     * A wait of {@link #WAIT} that looks again when an element it read went stale: the page re-renders
     * its lists (headers, items, nodes) while a test reads them.
     */
    WebDriverWait waiting() {
        WebDriverWait wait = new WebDriverWait(driver, WAIT);
        wait.ignoring(StaleElementReferenceException.class);
        return wait;
    }

    /** Saves a screenshot to the repository's docs/images (the README shows them). */
    void save(String name) throws IOException {
        Path root = Path.of("").toAbsolutePath();
        while (root != null && !Files.isDirectory(root.resolve("docs"))) {
            root = root.getParent();
        }
        assertThat(root).as("a parent directory with docs/").isNotNull();
        Path images = Files.createDirectories(root.resolve("docs").resolve("images"));
        Path shot = ((TakesScreenshot) driver).getScreenshotAs(OutputType.FILE).toPath();
        Files.copy(shot, images.resolve(name), StandardCopyOption.REPLACE_EXISTING);
    }

    @Override
    public void close() {
        try {
            driver.quit();
        } finally {
            service.stop();
        }
    }
}
