package com.coreweave.nodepool.systemtest.harness;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

/**
 * Debian's headless chromium driven through WebDriver by Debian's chromedriver (built for that very chromium), with a
 * fresh profile and no background traffic: it reaches nothing but the pages a test opens.
 */
public final class Browser implements AutoCloseable {

    private final Path profile;
    private final ChromeDriver driver;

    private Browser(Path chromium, Path chromedriver, int width, int height) {
        try {
            profile = Files.createTempDirectory("nodepool-chromium-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        ChromeOptions options = new ChromeOptions();
        options.setBinary(chromium.toFile());
        options.addArguments(
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
                "--disable-quic",
                "--user-data-dir=" + profile,
                "--window-size=" + width + "," + height);
        // The driver is given by path, so Selenium Manager never looks for (or downloads) one.
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(chromedriver.toFile())
                .usingAnyFreePort()
                .build();
        driver = new ChromeDriver(service, options);
    }

    /** chromium and chromedriver from the PATH (the test is skipped, or fails in CI, without them). */
    public static Browser start(int width, int height) {
        Path chromium = ExternalClient.require("chromium", "apt-get install chromium");
        Path chromedriver = ExternalClient.require("chromedriver", "apt-get install chromium-driver");
        return new Browser(chromium, chromedriver, width, height);
    }

    public ChromeDriver driver() {
        return driver;
    }

    /** Makes the page's viewport this size: the window is sized, measured, and sized again for its frame. */
    public void viewport(int width, int height) {
        Dimension window = new Dimension(width, height);
        for (int attempt = 0; attempt < 2; attempt++) {
            driver.manage().window().setSize(window);
            Number innerWidth = (Number) driver.executeScript("return window.innerWidth;");
            Number innerHeight = (Number) driver.executeScript("return window.innerHeight;");
            window = new Dimension(
                    window.getWidth() + width - innerWidth.intValue(),
                    window.getHeight() + height - innerHeight.intValue());
        }
        driver.manage().window().setSize(window);
    }

    /** A PNG of what the viewport shows, written to {@code file}. */
    public void screenshot(Path file) {
        try {
            Files.createDirectories(file.getParent());
            Files.write(file, driver.getScreenshotAs(OutputType.BYTES));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() {
        driver.quit();
        try (Stream<Path> files = Files.walk(profile)) {
            files.sorted(Comparator.reverseOrder())
                    .forEach(path -> path.toFile().delete());
        } catch (IOException e) {
            // a temp dir left behind is harmless
        }
    }
}
