//! A small W3C WebDriver client over plain HTTP/1.1 (std only): enough to drive the app's real
//! webview through `tauri-driver` + `WebKitWebDriver` — find elements, read text, click, and
//! take screenshots.

use anyhow::{Context, Result, anyhow, bail};
use serde_json::{Value, json};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

/// The key W3C uses for element references.
const ELEMENT: &str = "element-6066-11e4-a52e-4f735466cecf";

/// One HTTP exchange with the driver; returns the JSON body's `value`. tauri-driver now and then
/// closes a connection without answering (after a pause, when its pooled connection to
/// WebKitWebDriver has gone stale, so the command never reached the browser): the request is
/// then sent again.
fn request(port: u16, method: &str, path: &str, body: Option<&Value>) -> Result<Value> {
    let mut attempt = 0;
    loop {
        let raw = exchange(port, method, path, body)?;
        if raw.is_empty() && attempt < 5 {
            attempt += 1;
            std::thread::sleep(Duration::from_millis(100 * attempt));
            continue;
        }
        return parse_response(method, path, &raw);
    }
}

/// Sends one request on a fresh connection and returns the raw response.
fn exchange(port: u16, method: &str, path: &str, body: Option<&Value>) -> Result<Vec<u8>> {
    let mut stream = TcpStream::connect(("127.0.0.1", port))
        .with_context(|| format!("connect to the WebDriver on port {port}"))?;
    stream.set_read_timeout(Some(Duration::from_secs(120)))?;
    let payload = body.map(|b| b.to_string()).unwrap_or_default();
    let head = format!(
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n",
        payload.len()
    );
    stream.write_all(head.as_bytes())?;
    stream.write_all(payload.as_bytes())?;
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw)?;
    Ok(raw)
}

/// The JSON `value` of a raw HTTP response, or the error it reports.
fn parse_response(method: &str, path: &str, raw: &[u8]) -> Result<Value> {
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .ok_or_else(|| {
            anyhow!(
                "malformed HTTP response to {method} {path}: {:?}",
                String::from_utf8_lossy(raw)
            )
        })?;
    let headers = String::from_utf8_lossy(&raw[..split]).to_string();
    let mut body = raw[split + 4..].to_vec();
    if headers
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        body = dechunk(&body)?;
    }
    let status: u16 = headers
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| anyhow!("no HTTP status in {headers:?}"))?;
    let json: Value = if body.is_empty() {
        Value::Null
    } else {
        serde_json::from_slice(&body)
            .with_context(|| format!("{method} {path}: body is not JSON"))?
    };
    if status >= 400 {
        bail!("{method} {path} failed with HTTP {status}: {json}");
    }
    Ok(json.get("value").cloned().unwrap_or(Value::Null))
}

fn dechunk(mut data: &[u8]) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    loop {
        let line_end = data
            .windows(2)
            .position(|w| w == b"\r\n")
            .ok_or_else(|| anyhow!("bad chunk header"))?;
        let size_text = String::from_utf8_lossy(&data[..line_end]);
        let size = usize::from_str_radix(size_text.split(';').next().unwrap_or("").trim(), 16)?;
        data = &data[line_end + 2..];
        if size == 0 {
            return Ok(out);
        }
        if data.len() < size + 2 {
            bail!("truncated chunk");
        }
        out.extend_from_slice(&data[..size]);
        data = &data[size + 2..];
    }
}

/// A WebDriver session on one app window.
pub struct Session {
    port: u16,
    id: String,
}

impl Session {
    /// Starts `application` with `args` through tauri-driver on `port`.
    pub fn start(port: u16, application: &str, args: &[String]) -> Result<Self> {
        let caps = json!({
            "capabilities": {
                "alwaysMatch": {
                    "browserName": "wry",
                    "tauri:options": { "application": application, "args": args }
                }
            }
        });
        let v = request(port, "POST", "/session", Some(&caps))?;
        let id = v["sessionId"]
            .as_str()
            .ok_or_else(|| anyhow!("no sessionId in {v}"))?
            .to_string();
        Ok(Self { port, id })
    }

    fn call(&self, method: &str, path: &str, body: Option<&Value>) -> Result<Value> {
        request(
            self.port,
            method,
            &format!("/session/{}{path}", self.id),
            body,
        )
    }

    /// Elements matching a CSS selector (maybe none).
    pub fn find_all(&self, css: &str) -> Result<Vec<String>> {
        let v = self.call(
            "POST",
            "/elements",
            Some(&json!({"using": "css selector", "value": css})),
        )?;
        Ok(v.as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|e| e[ELEMENT].as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default())
    }

    /// The rendered text of each element matching `css`.
    pub fn texts(&self, css: &str) -> Result<Vec<String>> {
        self.find_all(css)?
            .iter()
            .map(|e| {
                let v = self.call("GET", &format!("/element/{e}/text"), None)?;
                Ok(v.as_str().unwrap_or_default().to_string())
            })
            .collect()
    }

    /// The text of the first element matching `css`, if any.
    pub fn text(&self, css: &str) -> Result<Option<String>> {
        Ok(self.texts(css)?.into_iter().next())
    }

    /// An attribute of the first element matching `css`.
    pub fn attribute(&self, css: &str, name: &str) -> Result<Option<String>> {
        let Some(e) = self.find_all(css)?.into_iter().next() else {
            return Ok(None);
        };
        let v = self.call("GET", &format!("/element/{e}/attribute/{name}"), None)?;
        Ok(v.as_str().map(str::to_string))
    }

    /// A DOM property of the first element matching `css` (e.g. an input's current `value`).
    pub fn property(&self, css: &str, name: &str) -> Result<Option<String>> {
        let Some(e) = self.find_all(css)?.into_iter().next() else {
            return Ok(None);
        };
        let v = self.call("GET", &format!("/element/{e}/property/{name}"), None)?;
        Ok(v.as_str().map(str::to_string))
    }

    /// Clicks the first element matching `css`.
    pub fn click(&self, css: &str) -> Result<()> {
        let e = self
            .find_all(css)?
            .into_iter()
            .next()
            .ok_or_else(|| anyhow!("no element matches {css:?}"))?;
        self.call("POST", &format!("/element/{e}/click"), Some(&json!({})))?;
        Ok(())
    }

    /// Types `text` into the first element matching `css`.
    pub fn type_text(&self, css: &str, text: &str) -> Result<()> {
        let e = self
            .find_all(css)?
            .into_iter()
            .next()
            .ok_or_else(|| anyhow!("no element matches {css:?}"))?;
        self.call(
            "POST",
            &format!("/element/{e}/value"),
            Some(&json!({ "text": text })),
        )?;
        Ok(())
    }

    /// A PNG of the webview.
    pub fn screenshot(&self) -> Result<Vec<u8>> {
        let v = self.call("GET", "/screenshot", None)?;
        let b64 = v
            .as_str()
            .ok_or_else(|| anyhow!("screenshot is not a string"))?;
        base64_decode(b64)
    }

    /// Polls `probe` every 200 ms until it returns `Some` or `timeout` passes.
    pub fn wait_for<T>(
        &self,
        what: &str,
        timeout: Duration,
        mut probe: impl FnMut(&Self) -> Result<Option<T>>,
    ) -> Result<T> {
        let start = Instant::now();
        let mut last_error: Option<anyhow::Error>;
        loop {
            // A probe may fail while the page is still loading or re-rendering (WebKitWebDriver
            // then drops the connection): that is "not yet", unless it lasts until the timeout.
            match probe(self) {
                Ok(Some(v)) => return Ok(v),
                Ok(None) => last_error = None,
                Err(e) => last_error = Some(e),
            }
            if start.elapsed() > timeout {
                let why = last_error
                    .map(|e| format!(" (last error: {e:#})"))
                    .unwrap_or_default();
                bail!(
                    "timed out after {} s waiting for {what}{why}",
                    timeout.as_secs()
                );
            }
            std::thread::sleep(Duration::from_millis(200));
        }
    }

    /// Ends the session (closes the app).
    pub fn end(self) -> Result<()> {
        self.call("DELETE", "", None).map(|_| ())
    }
}

fn base64_decode(text: &str) -> Result<Vec<u8>> {
    let val = |c: u8| -> Result<u32> {
        Ok(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => bail!("bad base64 byte {c}"),
        } as u32)
    };
    let bytes: Vec<u8> = text
        .bytes()
        .filter(|c| !c.is_ascii_whitespace() && *c != b'=')
        .collect();
    let mut out = Vec::with_capacity(bytes.len() * 3 / 4);
    for chunk in bytes.chunks(4) {
        let mut n = 0u32;
        for (i, &c) in chunk.iter().enumerate() {
            n |= val(c)? << (18 - 6 * i);
        }
        let take = chunk.len().saturating_sub(1);
        out.extend_from_slice(&n.to_be_bytes()[1..1 + take]);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_base64_and_chunked_bodies() {
        assert_eq!(base64_decode("aGVsbG8=").expect("b64"), b"hello");
        assert_eq!(base64_decode("aGk=").expect("b64"), b"hi");
        assert_eq!(
            dechunk(b"5\r\nhello\r\n1\r\n!\r\n0\r\n\r\n").expect("chunks"),
            b"hello!"
        );
    }
}
