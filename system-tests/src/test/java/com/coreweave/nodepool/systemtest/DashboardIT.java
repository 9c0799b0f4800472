package com.coreweave.nodepool.systemtest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.coreweave.nodepool.systemtest.harness.Browser;
import com.coreweave.nodepool.systemtest.harness.Service;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.Keys;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.interactions.Actions;

/**
 * Issue 14 end to end: the dashboard in real headless chromium against the five services. An org signs in, creates a
 * spot pool through the API and watches it reach TargetMet without reloading, opens it (nodes, events), sees the
 * countdown of each node that spot reclaim takes back; then an operator sees the fleet and every org's quotas. Every
 * view is also checked at a phone's width, for labels, contrast and keyboard use, and photographed into
 * target/dashboard-screenshots (docs/ holds copies).
 */
@StackUse.Shares
class DashboardIT {

    static final String ZONE = "EU-SOUTH-04A";
    static final String TYPE = "gd-8xl40s-i128";
    static final String POOL = "dashboard-spot";
    static final Path SHOTS = Path.of("target", "dashboard-screenshots");
    // The countdown the reference gives to the removal (T+7), here shortened to 12 s by the shared stack.
    static final Pattern TO_REMOVAL = Pattern.compile("removal \\(T\\+7\\) in (\\d+):(\\d\\d)");
    /** Every text the dashboard shows must reach WCAG AA contrast (4.5:1) against what is behind it. */
    static final String CONTRAST = """
      const luminance = (color) => {
        const [r, g, b] = color.match(/[\\d.]+/g).slice(0, 3).map(Number).map((v) => {
          v /= 255;
          return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4);
        });
        return 0.2126 * r + 0.7152 * g + 0.0722 * b;
      };
      const background = (element) => {
        for (let e = element; e; e = e.parentElement) {
          const c = getComputedStyle(e).backgroundColor;
          if (c !== 'transparent' && !/rgba\\(.*,\\s*0\\)$/.test(c)) return c;
        }
        return 'rgb(255, 255, 255)';
      };
      const low = [];
      for (const e of document.querySelectorAll(arguments[0])) {
        if (!e.offsetParent || !e.textContent.trim()) continue;
        const f = luminance(getComputedStyle(e).color), b = luminance(background(e));
        const ratio = (Math.max(f, b) + 0.05) / (Math.min(f, b) + 0.05);
        if (ratio < 4.5) low.push(e.textContent.trim().slice(0, 40) + ': ' + ratio.toFixed(2));
      }
      return low;""";

    static final String TEXT = "h1, h2, h3, th, td, caption, dt, dd, label, a, button, .hint, .badge, .chip, .live, "
            + ".legend li, .countdown, .stage";

    /** An org of its own: its pool table must show only this test's pool. */
    static final String ORG = "dashboard";

    static Api org;

    @BeforeAll
    static void setUp() {
        org = SystemStack.api("dashboard-token");
        SystemStack.quota(ORG, ZONE, TYPE, 4);
        SystemStack.fleet(ZONE, TYPE, 3);
    }

    @AfterAll
    static void cleanUp() {
        org.delete(Api.POOLS + "/" + POOL);
    }

    static ConditionFactory eventually(int seconds) {
        return await().atMost(Duration.ofSeconds(seconds))
                .pollInterval(Duration.ofMillis(250))
                .ignoreExceptions();
    }

    @Test
    void anOrgWatchesItsSpotPoolComeUpAndCountDownAndAnOperatorSeesTheFleet() {
        try (Browser browser = Browser.start(1280, 800)) {
            ChromeDriver page = browser.driver();
            browser.viewport(1280, 800);
            URI dashboard = SystemStack.get().url(Service.API).resolve("/dashboard");

            // 1. Sign in (the label names the field; a wrong token is refused with a message).
            page.get(dashboard.toString());
            signIn(page, "not-a-token");
            eventually(20).until(() -> text(page, "#sign-in-error").contains("not accepted"));
            signIn(page, "dashboard-token");
            eventually(20)
                    .until(() -> text(page, "h1").equals("Node pools")
                            && text(page, ".live").equals("live"));
            assertThat(text(page, "#who")).contains(ORG);
            page.executeScript("window.sameDocument = true;");

            // 2. A pool created through the API ...
            String spotPool = Api.pool(POOL, TYPE, 3)
                    .replace(
                            "\"instanceType\"",
                            "\"region\":\"" + ZONE
                                    + "\",\"computeClass\":\"spot\",\"nodeLabels\":{\"team\":\"research\"},"
                                    + "\"instanceType\"");
            assertThat(org.post(Api.POOLS, spotPool).code()).isEqualTo(201);

            // 3. ... appears and reaches TargetMet while the page stays as it is.
            String row = "tr[data-pool='" + POOL + "']";
            eventually(30).until(() -> !page.findElements(By.cssSelector(row)).isEmpty());
            eventually(90)
                    .until(() -> !page.findElements(
                                    By.cssSelector(row + " [data-condition='AtTarget'][data-reason='TargetMet']"))
                            .isEmpty());
            assertThat(text(page, "#pools caption"))
                    .as("only the org's own pools")
                    .isEqualTo("1 pool");
            assertThat(cell(page, row, "Current")).isEqualTo("3");
            // A condition's message shows on hover (and on keyboard focus).
            eventually(10).untilAsserted(() -> {
                WebElement atTarget = page.findElement(By.cssSelector(row + " [data-condition='AtTarget']"));
                new Actions(page).moveToElement(atTarget).perform();
                assertThat(atTarget.findElement(By.cssSelector(".tip")).getText())
                        .isEqualTo("NodePool has reached its target node count.");
            });
            assertReadable(page);
            browser.screenshot(SHOTS.resolve("pools.png"));

            // 4. Open it from the keyboard: its nodes and its events.
            page.findElement(By.cssSelector(row + " a")).sendKeys(Keys.ENTER);
            eventually(20).until(() -> text(page, "h1").equals(POOL));
            // Read as text inside the wait: the table is redrawn whenever the pool changes.
            Map<String, String> nodes = eventually(30)
                    .until(
                            () -> page.findElements(By.cssSelector("#nodes tr[data-node]")).stream()
                                    .collect(Collectors.toMap(n -> n.getAttribute("data-node"), WebElement::getText)),
                            n -> n.size() == 3);
            assertThat(nodes.values()).allSatisfy(n -> assertThat(n).contains("Registered", "team=research"));
            assertThat(page.findElements(By.cssSelector("#nodes [data-condition='CWRegistered']")))
                    .hasSize(3);
            eventually(20)
                    .until(() -> !page.findElements(By.cssSelector("#events tr[data-reason='CWNodeRegistered']"))
                            .isEmpty());
            assertThat(page.findElements(By.cssSelector("#events tr[data-reason='CWNodePoolCreated']")))
                    .hasSize(1);
            assertThat(text(page, "#revisions")).contains("np-");
            browser.screenshot(SHOTS.resolve("pool.png"));

            // 5. Spot capacity is taken back: each reclaimed node counts down to its removal, second by second. Its
            // workload is busy with a long grace period, so it stays until the window's end.
            nodes.keySet()
                    .forEach(node -> assertThat(org.put(
                                            Api.POOLS + "/" + POOL + "/nodes/" + node + "/activity",
                                            "{\"active\": true, \"terminationGracePeriodSeconds\": 600}")
                                    .code())
                            .isEqualTo(202));
            var reclaim = SystemStack.admin(Service.CAPACITY)
                    .post("/admin/fleet/" + ZONE + "/" + TYPE + "/reclaim-spot", "{\"nodes\": 1}");
            assertThat(reclaim.code()).isIn(200, 202);
            int first = eventually(20).until(() -> secondsToRemoval(page), seconds -> seconds > 0);
            eventually(10).until(() -> {
                int later = secondsToRemoval(page);
                return later >= 0 && later < first;
            });
            assertThat(text(page, "#spot .timeline")).containsPattern("warned|draining");
            page.executeScript("document.getElementById('spot').scrollIntoView();");
            browser.screenshot(SHOTS.resolve("pool-spot-countdown.png"));
            // When the window ends the node is gone and the pool's history counts it.
            eventually(60).until(() -> text(page, "#preempted-7d").equals("1"));
            eventually(20)
                    .until(() -> page.findElements(By.cssSelector("#events tr[data-type='Warning']"))
                                    .size()
                            >= 3);
            assertThat(text(page, "#events"))
                    .contains("Preemption pending", "Preemption in progress", "Deleted for preemption");
            page.findElement(By.cssSelector("input[name='event-type'][value='Warning']"))
                    .click();
            eventually(10)
                    .untilAsserted(() -> assertThat(page.findElements(By.cssSelector("#events tbody tr")))
                            .allSatisfy(
                                    r -> assertThat(r.getAttribute("data-type")).isEqualTo("Warning")));
            assertReadable(page);
            page.executeScript("document.getElementById('events-title').scrollIntoView();");
            browser.screenshot(SHOTS.resolve("pool-events.png"));

            // The org's live warning feed holds the same story.
            page.findElement(By.linkText("Live events")).click();
            eventually(20).until(() -> text(page, "#feed").contains("Deleted for preemption"));
            assertThat(text(page, "#feed")).contains(POOL);
            browser.screenshot(SHOTS.resolve("events.png"));

            // At a phone's width every view fits the screen: tables become cards, nothing scrolls sideways.
            browser.viewport(390, 844);
            for (String view : List.of("#/pools", "#/pools/" + POOL, "#/events", "#/capacity")) {
                page.executeScript("location.hash = arguments[0];", view);
                eventually(20)
                        .until(() -> !text(page, "h1").isEmpty()
                                && !text(page, "main").contains("Loading"));
                assertThat((Boolean)
                                page.executeScript("return document.documentElement.scrollWidth <= window.innerWidth;"))
                        .as("%s fits", view)
                        .isTrue();
            }
            page.executeScript("location.hash = '#/pools';");
            eventually(20).until(() -> !page.findElements(By.cssSelector(row)).isEmpty());
            browser.screenshot(SHOTS.resolve("phone-pools.png"));
            browser.viewport(1280, 800);
            assertThat(page.executeScript("return window.sameDocument === true;"))
                    .as("never reloaded")
                    .isEqualTo(true);

            // An operator: the fleet per zone and type and every org's quotas, as bars.
            page.findElement(By.id("sign-out")).click();
            eventually(10).until(() -> text(page, "h1").equals("Sign in"));
            signIn(page, "admin-token");
            // Every org's pools, each with its org; then the fleet and the quotas.
            eventually(20)
                    .until(() -> cell(page, "tr[data-pool='" + ORG + "/" + POOL + "']", "Org")
                            .equals(ORG));
            assertThat(text(page, "#nav")).doesNotContain("Live events");
            page.findElement(By.linkText("Fleet & quotas")).click();
            String ledger = "[data-ledger='" + ZONE + "/" + TYPE + "']";
            eventually(20).until(() -> text(page, ledger).contains("2 allocated, spot"));
            assertThat(text(page, ledger)).contains("Machines (3 in service)", "1 in maintenance");
            String quota = ORG + "/" + ZONE + "/" + TYPE;
            eventually(20)
                    .until(() ->
                            text(page, "[data-quota='" + quota + "']").contains(usedOfQuota(quota) + " of 4 used"));
            assertReadable(page);
            browser.screenshot(SHOTS.resolve("fleet-and-quotas.png"));
        }
    }

    static void signIn(ChromeDriver page, String token) {
        eventually(20)
                .until(() -> page.findElement(By.cssSelector("label[for='token']"))
                        .getText()
                        .equals("Access token"));
        WebElement field = page.findElement(By.id("token"));
        field.clear();
        field.sendKeys(token, Keys.ENTER);
    }

    /** The element's text; the live views redraw often, so an element replaced while it was read is read again. */
    static String text(ChromeDriver page, String css) {
        for (int attempt = 1; ; attempt++) {
            try {
                return page.findElement(By.cssSelector(css)).getText().trim();
            } catch (StaleElementReferenceException e) {
                if (attempt == 5) {
                    throw e;
                }
            }
        }
    }

    /** The text of a row's cell under the column of that name. */
    static String cell(ChromeDriver page, String row, String column) {
        return text(page, row + " td[data-label='" + column + "']");
    }

    /** How many nodes the quota-service counts as used under a quota ({@code org/zone/type}). */
    static int usedOfQuota(String key) {
        for (var q :
                SystemStack.admin(Service.QUOTA).get("/admin/quotas").body().path("items")) {
            if (key.equals(q.path("org").asText() + "/" + q.path("zone").asText() + "/"
                    + q.path("instanceType").asText())) {
                return q.path("usedNodes").asInt();
            }
        }
        throw new AssertionError("no quota " + key);
    }

    static int secondsToRemoval(ChromeDriver page) {
        Matcher m = TO_REMOVAL.matcher(text(page, "#spot .timeline .to-removal"));
        return m.find() ? Integer.parseInt(m.group(1)) * 60 + Integer.parseInt(m.group(2)) : -1;
    }

    /** Contrast, and a name for every control and every condition badge. */
    static void assertReadable(ChromeDriver page) {
        assertThat((List<?>) page.executeScript(CONTRAST, TEXT))
                .as("text below 4.5:1 contrast")
                .isEmpty();
        assertThat((List<?>) page.executeScript("""
        return [...document.querySelectorAll('input, button, select, a, [role=img], [tabindex]')]
          .filter((e) => e.offsetParent && !(e.labels?.length || e.getAttribute('aria-label')
            || e.textContent.trim() || e.id === 'main'))
          .map((e) => e.outerHTML.slice(0, 80));"""))
                .as("controls without a name")
                .isEmpty();
    }
}
