import { createRoot } from 'react-dom/client';
import { App } from './app/App';
import { BridgeProvider } from './base';
import { connectBridge } from './bridge';
import './styles.css';

const root = createRoot(document.getElementById('root')!);

connectBridge().then(
  (bridge) =>
    root.render(
      <BridgeProvider bridge={bridge}>
        <App />
      </BridgeProvider>,
    ),
  (err: Error) =>
    root.render(
      <div role="alert" className="fatal">
        Kiln could not connect: {err.message}
      </div>,
    ),
);
