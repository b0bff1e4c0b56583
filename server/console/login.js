// The login form, shown when the server answers 401: the credentials go to
// api.js (sessionStorage), and `retry` decides whether they were right.

import { setCredentials, forgetCredentials, Unauthorized } from './api.js';

/** The login under way: every request refused meanwhile waits for the same one. */
let pending = null;

/**
 * Shows the form with `reason`; resolves once `retry` (run after each
 * submit with the new credentials) succeeds.
 */
export function login(reason, retry) {
  if (!pending) pending = ask(reason, retry).finally(() => { pending = null; });
  return pending;
}

function ask(reason, retry) {
  const form = document.getElementById('login');
  const message = document.getElementById('login-message');
  message.textContent = reason;
  form.hidden = false;
  form.elements.user.focus();
  return new Promise((resolve) => {
    form.onsubmit = async (event) => {
      event.preventDefault();
      setCredentials(form.elements.user.value, form.elements.password.value);
      try {
        await retry();
      } catch (e) {
        // Anything but a refusal means the credentials were accepted.
        if (e instanceof Unauthorized) {
          forgetCredentials();
          message.textContent = e.message;
          return;
        }
      }
      form.elements.password.value = '';
      form.hidden = true;
      form.onsubmit = null;
      resolve();
    };
  });
}
