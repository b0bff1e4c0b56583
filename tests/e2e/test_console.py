"""The web console (issue 29) in a real browser: Debian's headless Chromium, driven through
chromedriver by Selenium, opens the page at `/` of a server with a user, is refused a wrong
password and logs in, runs a CREATE and a MATCH and finds their rows in the table and their
nodes (by label and caption) in the graph view, drags a node, shows a node's properties,
draws EXPLAIN and PROFILE plans as trees, passes parameters, lists the schema in the sidebar,
keeps the history across a reload, and breaks no rule of the page's Content-Security-Policy.
Screenshots go to $NEREID_E2E_OUTPUT when the test script sets it, else to pytest's tmp_path.

The page is opened as http://localhost:<port> while the server listens on 127.0.0.1: the
origin check accepts a page named by localhost or an address as the server's own."""

import os
import re

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--window-size=1400,1000"]
WAIT = 30


@pytest.fixture
def browser(tmp_path):
    for path in (CHROMIUM, CHROMEDRIVER):
        assert os.path.exists(path), f"{path} is missing: apt-get install chromium chromium-driver"
    options = Options()
    options.binary_location = CHROMIUM
    for flag in FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={tmp_path / 'profile'}")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture
def output(tmp_path):
    directory = os.environ.get("NEREID_E2E_OUTPUT") or str(tmp_path)
    os.makedirs(directory, exist_ok=True)
    return directory


def wait(browser, condition, what):
    return WebDriverWait(browser, WAIT).until(lambda _: condition(), message=what)


def run(browser, statement, button="run", parameters=""):
    """Types `statement` (and parameters) and presses `button`; waits for the answer."""
    browser.execute_script("document.getElementById('status').textContent = ''")
    for box, text in (("statement", statement), ("parameters", parameters)):
        element = browser.find_element(By.ID, box)
        element.clear()
        if text:
            element.send_keys(text)
    browser.find_element(By.ID, button).click()
    status = browser.find_element(By.ID, "status")
    wait(browser, lambda: status.text and status.text != "Running…", f"an answer to {statement}")
    assert "error" not in (status.get_attribute("class") or ""), status.text
    return status.text


def texts(browser, selector):
    """The text of every element `selector` matches, read at one instant (a view may be redrawn
    between two WebDriver calls)."""
    return browser.execute_script(
        "return [...document.querySelectorAll(arguments[0])].map((e) => e.textContent)", selector)


def table(browser):
    browser.find_element(By.ID, "tab-table").click()
    head = texts(browser, "#view-table th")
    width = max(len(head), 1)
    cells = texts(browser, "#view-table tbody td")
    return head, [cells[i:i + width] for i in range(0, len(cells), width)]


def sidebar(browser, section):
    return texts(browser, f"#sidebar-{section} button")


def translate(element):
    x, y = re.match(r"translate\(([-\d.e]+),([-\d.e]+)\)", element.get_attribute("transform")).groups()
    return float(x), float(y)


def settled(browser, node):
    """Waits until the layout has stopped moving `node`."""
    last = [None]

    def still():
        now = translate(node)
        if last[0] == now:
            return True
        last[0] = now
        browser.execute_script("return new Promise((done) => setTimeout(done, 300))")
        return False
    wait(browser, still, "the layout to settle")


def test_console_logs_in_queries_and_draws_tables_graphs_and_plans(secured, browser, output):
    browser.get(f"http://localhost:{secured.http_port}/")
    form = browser.find_element(By.ID, "login")
    wait(browser, form.is_displayed, "the login form")

    # A wrong password keeps the form up with the server's reason.
    form.find_element(By.NAME, "user").send_keys("neo4j")
    form.find_element(By.NAME, "password").send_keys("wrong-pw", Keys.ENTER)
    message = browser.find_element(By.ID, "login-message")
    wait(browser, lambda: "unauthorized" in message.text.lower() or "invalid" in message.text.lower(),
         "the refusal of a wrong password")
    assert form.is_displayed()
    form.find_element(By.NAME, "password").clear()
    form.find_element(By.NAME, "password").send_keys("s3cret-pw", Keys.ENTER)
    wait(browser, lambda: not form.is_displayed(), "the form to close after the right password")
    assert browser.find_element(By.ID, "user").text == "Signed in as neo4j"

    created = run(browser, "CREATE (a:Person {name:'Ann'})-[:KNOWS]->(b:Person {name:'Bob'}) RETURN a, b")
    assert created.startswith("1 row"), created
    assert "nodes created: 2" in created and "relationships created: 1" in created, created
    head, rows = table(browser)
    assert head == ["a", "b"]
    assert len(rows) == 1 and rows[0][0].startswith("(:Person") and '"Ann"' in rows[0][0], rows
    assert '"Bob"' in rows[0][1], rows

    # The sidebar refreshes after a write.
    wait(browser, lambda: "Person" in sidebar(browser, "labels"), "the label in the sidebar")
    wait(browser, lambda: "KNOWS" in sidebar(browser, "types"), "the type in the sidebar")
    assert "name" in sidebar(browser, "keys")

    run(browser, "MATCH (a:Person)-[r:KNOWS]->(b:Person) RETURN a.name AS from, r, b.name AS to")
    head, rows = table(browser)
    assert head == ["from", "r", "to"] and len(rows) == 1, (head, rows)
    assert rows[0][0] == "Ann" and rows[0][1].startswith("[:KNOWS") and rows[0][2] == "Bob", rows

    # The graph view: both nodes by label and caption, the relationship between them
    # (a result of two nodes gets the relationships that join them, as in CREATE's answer).
    run(browser, "MATCH (p:Person) RETURN p ORDER BY p.name")
    browser.find_element(By.ID, "tab-graph").click()
    nodes = wait(browser, lambda: browser.find_elements(By.CSS_SELECTOR, "#graph g.node")
                 if len(browser.find_elements(By.CSS_SELECTOR, "#graph g.node")) == 2 else None,
                 "two nodes in the graph")
    assert sorted(n.text for n in nodes) == ["Ann", "Bob"]
    assert {n.get_attribute("data-labels") for n in nodes} == {"Person"}
    rels = browser.find_elements(By.CSS_SELECTOR, "#graph g.rel")
    assert [r.get_attribute("data-type") for r in rels] == ["KNOWS"]
    first, second = (translate(n) for n in nodes)
    assert abs(first[0] - second[0]) + abs(first[1] - second[1]) > 40, (first, second)

    # A click shows the node's properties; a drag moves it and it stays there.
    ann = next(n for n in nodes if n.text == "Ann")
    settled(browser, ann)
    ann.click()
    details = browser.find_element(By.ID, "details")
    wait(browser, details.is_displayed, "the node's properties")
    assert ":Person" in details.text and "name" in details.text and "Ann" in details.text
    before = translate(ann)
    ActionChains(browser).click_and_hold(ann).move_by_offset(60, 40).move_by_offset(20, 10) \
        .release().perform()
    after = translate(ann)
    assert abs(after[0] - before[0] - 80) < 15 and abs(after[1] - before[1] - 50) < 15, (before, after)
    browser.save_screenshot(os.path.join(output, "console-graph.png"))

    # The JSON view holds the same records.
    browser.find_element(By.ID, "tab-json").click()
    json_text = browser.find_element(By.ID, "json").text
    assert '"name": "Ann"' in json_text and '"labels": [' in json_text, json_text

    # EXPLAIN: a tree whose root produces the results, with operators below it.
    explained = run(browser, "MATCH (a:Person)-[:KNOWS]->(b) RETURN b.name", button="explain")
    assert explained.startswith("0 rows"), explained
    assert browser.find_element(By.ID, "view-plan").is_displayed()
    root = browser.find_element(By.CSS_SELECTOR, "ul.plan > li > .operator strong")
    assert root.text == "ProduceResults"
    below = browser.find_elements(By.CSS_SELECTOR, "ul.plan > li > ul .operator strong")
    assert len(below) >= 2, [b.text for b in below]
    browser.save_screenshot(os.path.join(output, "console-explain.png"))

    # PROFILE: the same tree with each operator's rows and hits.
    run(browser, "MATCH (a:Person)-[:KNOWS]->(b) RETURN b.name", button="profile")
    figures = browser.find_element(By.CSS_SELECTOR, "ul.plan > li > .operator small").text
    assert "1 row ·" in figures and "db hits" in figures, figures

    # Parameters as JSON.
    run(browser, "MATCH (p:Person {name: $name}) RETURN p.name AS name", parameters='{"name": "Bob"}')
    assert table(browser) == (["name"], [["Bob"]])

    # Indexes and constraints in the sidebar.
    run(browser, "CREATE INDEX person_name FOR (p:Person) ON (p.name)")
    run(browser, "CREATE CONSTRAINT person_key FOR (p:Person) REQUIRE p.key IS UNIQUE")
    browser.find_element(By.ID, "refresh").click()
    wait(browser, lambda: "person_name" in sidebar(browser, "indexes"), "the index in the sidebar")
    wait(browser, lambda: "person_key" in sidebar(browser, "constraints"), "the constraint")

    # A bad statement shows Neo4j's code; bad parameters are caught before sending.
    browser.find_element(By.ID, "statement").clear()
    browser.find_element(By.ID, "statement").send_keys("MATCH (n RETURN n")
    browser.find_element(By.ID, "run").click()
    status = browser.find_element(By.ID, "status")
    wait(browser, lambda: "Neo.ClientError.Statement.SyntaxError" in status.text, "the syntax error")
    browser.find_element(By.ID, "parameters").send_keys("{not json")
    browser.find_element(By.ID, "run").click()
    wait(browser, lambda: status.text.startswith("Parameters are not JSON"), "the parameter error")

    # History survives a reload, and so does the login (sessionStorage).
    browser.refresh()
    wait(browser, lambda: "Person" in sidebar(browser, "labels"), "the sidebar after a reload")
    assert not browser.find_element(By.ID, "login").is_displayed()
    history = [o.get_attribute("value")
               for o in browser.find_elements(By.CSS_SELECTOR, "#history option")]
    assert "MATCH (p:Person) RETURN p ORDER BY p.name" in history, history
    statement = browser.find_element(By.ID, "statement")
    statement.send_keys(Keys.CONTROL, Keys.ARROW_UP)
    assert statement.get_attribute("value") == "MATCH (n RETURN n"

    # Nothing the page did broke its Content-Security-Policy or threw.
    problems = [entry["message"] for entry in browser.get_log("browser")
                if "Content Security Policy" in entry["message"] or "Uncaught" in entry["message"]]
    assert not problems, problems


def test_console_without_users_asks_for_no_login(server, browser):
    """A server without users (loopback only): the page runs queries at once; opened under the
    configured address, its origin is the listed one."""
    browser.get(f"http://127.0.0.1:{server.http_port}/")
    wait(browser, lambda: browser.find_elements(By.CSS_SELECTOR, "#sidebar-labels")[0].text,
         "the sidebar")
    assert not browser.find_element(By.ID, "login").is_displayed()
    assert not browser.find_element(By.ID, "logout").is_displayed()
    run(browser, "UNWIND [1, 2, 3] AS i RETURN i, i * i AS square")
    assert table(browser) == (["i", "square"], [["1", "1"], ["2", "4"], ["3", "9"]])
