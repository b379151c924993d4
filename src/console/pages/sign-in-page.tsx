import { FormEvent, useState } from 'react';
import { api, errorText } from '../api';

/** E-mail and password; the server sets the session cookie. Locked e-mails get the server's own message. */
export function SignInPage({ onSignedIn }: { onSignedIn: () => void }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await api.post('/api/login/', { email, password });
      onSignedIn();
    } catch (failure) {
      setError(errorText(failure));
    } finally {
      setBusy(false);
    }
  }

  return (
    <div className="sign-in panel">
      <h1>Sign in to hogbase</h1>
      <form onSubmit={submit}>
        <label>
          E-mail
          <input name="email" type="email" autoComplete="username" value={email} onChange={(e) => setEmail(e.target.value)} required />
        </label>
        <label>
          Password
          <input name="password" type="password" autoComplete="current-password" value={password} onChange={(e) => setPassword(e.target.value)} required />
        </label>
        {error && <p className="error" role="alert">{error}</p>}
        <button className="primary" type="submit" disabled={busy}>
          Sign in
        </button>
      </form>
      <p className="muted">
        The first start printed the admin's e-mail and password. Forgot it? Run <code>npm run cli -- users set-password</code>.
      </p>
    </div>
  );
}
